import ArgumentParser
import VoiceEngine
import VoiceTransport

/// The CLI's `--path`: which real-time path a call's voice may take.
enum CallPathChoice: String, CaseIterable, Sendable {
    /// The best path that works: direct UDP, else carried over the signalling link.
    case auto
    /// Direct UDP between the hosts only.
    case direct
    /// Carried over the app's own signalling connection only.
    case app
    /// Through a relay over UDP only (`join --relay`).
    case relay
    /// Through a relay over TCP only (`join --relay`).
    case relayTCP = "relay-tcp"

    /// The engine's forced path; nil lets it choose.
    var forcedPath: RealTimePathKind? {
        switch self {
        case .auto: nil
        case .direct: .direct
        case .app: .appCarried
        case .relay: .relayUDP
        case .relayTCP: .relayTCP
        }
    }

    var needsRelay: Bool { self == .relay || self == .relayTCP }

    /// Parses `--path`, naming the paths there are when the text is none of them.
    init(argument: String) throws {
        guard let choice = Self(rawValue: argument) else {
            throw ValidationError(
                "there is no path \"\(argument)\"; use \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = choice
    }

    /// How a match reaches its relay under this choice: a forced relay transport is the only one
    /// opened and carries voice from the start.
    func relayOptions(host: String, port: Int, token: String, primary: Bool) -> RelayOptions {
        var options = RelayOptions(host: host, port: port, token: token)
        options.allowsUDP = self != .relayTCP
        options.allowsTCP = self != .relay
        options.isPrimary = primary || needsRelay
        return options
    }
}
