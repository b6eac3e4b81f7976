import Foundation

/// Where `listen --accept N` (N other than 1) writes each call's files: the name the user gave
/// with the call's number before its extension (`heard.wav` → `heard-2.wav`), so that no call
/// overwrites another's. Standard output (`-`) and device files stay as they are.
enum PerCallPaths {
    static func path(_ path: String, call: Int) -> String {
        guard path != "-", !path.hasPrefix("/dev/") else { return path }
        let url = URL(fileURLWithPath: path)
        let fileExtension = url.pathExtension
        let stem = url.deletingPathExtension().lastPathComponent
        let name = fileExtension.isEmpty ? "\(stem)-\(call)" : "\(stem)-\(call).\(fileExtension)"
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? name : (directory as NSString).appendingPathComponent(name)
    }
}

extension CallOptions {
    /// These options with call `number`'s own files to write.
    func forCall(_ number: Int) -> CallOptions {
        var options = self
        options.endpoints.output = endpoints.output.map { PerCallPaths.path($0, call: number) }
        options.record = record.map { PerCallPaths.path($0, call: number) }
        return options
    }
}

extension ObservationOptions {
    /// These options with call `number`'s own statistics and summary files.
    func forCall(_ number: Int) -> ObservationOptions {
        var options = self
        options.statsJSON = statsJSON.map { PerCallPaths.path($0, call: number) }
        options.summaryJSON = summaryJSON.map { PerCallPaths.path($0, call: number) }
        return options
    }
}
