#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// JSON lines as the control socket, the relay's admin socket and the stats file write them: compact, keys sorted, one
/// object per line ending in "\n".
public enum JSONLines {
    public static func line(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Everything encoded here is finite by construction (levels are floored), so this does not
        // fail; should it, the reader still gets a line it can parse.
        guard let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8) else {
            return "{\"ok\":false,\"error\":\"internal error: could not encode the reply\"}\n"
        }
        return text + "\n"
    }
}
