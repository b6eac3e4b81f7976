import VoiceCore

/// The `HOST:PORT` a call goes to: a host name, an IPv4 address, or an IPv6 address in brackets.
struct CallAddress: Hashable, CustomStringConvertible {
    var host: String
    var port: Int

    init(parsing text: String) throws(CommandFailure) {
        let example = "write it as HOST:PORT, e.g. 192.0.2.7:7300, bob.local:7300 or [2001:db8::7]:7300"
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].first == ":" else {
                throw CommandFailure("invalid address \"\(text)\": \(example)")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw CommandFailure(
                    "invalid address \"\(text)\": "
                        + (parts.count < 2 ? "the port is missing; " : "an IPv6 address needs brackets; ") + example)
            }
            hostPart = parts[0]
            portPart = parts[1]
        }
        guard !hostPart.isEmpty, !hostPart.contains(where: { $0.isWhitespace }) else {
            throw CommandFailure("invalid address \"\(text)\": the host is missing; \(example)")
        }
        guard portPart.count <= 5, portPart.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portPart),
            (1...65_535).contains(port)
        else {
            throw CommandFailure(
                "invalid address \"\(text)\": the port \"\(portPart)\" is not a number from 1 to 65535; \(example)")
        }
        host = String(hostPart)
        self.port = port
    }

    var description: String { endpointText(host: host, port: port) }
}
