/// Unpadded base64url (RFC 4648 §5), so tokens survive shells and URLs unquoted.
///
/// Lives here rather than in a shared module because only relay tokens use it.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            if remaining > 1 { output.append(alphabet[Int(group >> 6 & 63)]) }
            if remaining > 2 { output.append(alphabet[Int(group & 63)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// nil for any character outside the alphabet, padding, or an impossible length.
    static func decode(_ text: Substring) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        for character in text.utf8 {
            guard let value = value(of: character) else { return nil }
            values.append(value)
        }
        guard values.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        var index = 0
        while index < values.count {
            let remaining = values.count - index
            var group: UInt32 = 0
            for offset in 0..<4 { group = group << 6 | UInt32(offset < remaining ? values[index + offset] : 0) }
            output.append(UInt8(truncatingIfNeeded: group >> 16))
            if remaining > 2 { output.append(UInt8(truncatingIfNeeded: group >> 8)) }
            if remaining > 3 { output.append(UInt8(truncatingIfNeeded: group)) }
            index += 4
        }
        return output
    }

    private static func value(of character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
