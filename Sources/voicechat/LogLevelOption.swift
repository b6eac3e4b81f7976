import ArgumentParser
import Logging

/// A `--log-level` argument: swift-log's levels by name.
struct LogLevelOption: ExpressibleByArgument, CustomStringConvertible {
    let level: Logger.Level

    init(_ level: Logger.Level) { self.level = level }

    init?(argument: String) {
        guard let level = Logger.Level(rawValue: argument.lowercased()) else { return nil }
        self.level = level
    }

    var description: String { level.rawValue }

    static var allValueStrings: [String] { Logger.Level.allCases.map(\.rawValue) }
}
