import Testing
import VoiceWire

/// Writes a packet into a fresh maximum-size buffer and returns exactly the written bytes.
func writePacket(
    flags: VoicePacketFlags = [], channel: ChannelNumber = 3, sender: MediaID = 0xDEAD_BEEF, sequence: UInt16 = 7,
    timestamp: UInt32 = 48_000, primary: [UInt8], redundant0: (UInt16, [UInt8])? = nil,
    redundant1: (UInt16, [UInt8])? = nil
) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0xAA, count: VoicePacketWriter.maximumPacketBytes)
    let r0 = redundant0?.1 ?? []
    let r1 = redundant1?.1 ?? []
    let written = try buffer.withUnsafeMutableBytes { output in
        try primary.withUnsafeBytes { primaryBytes in
            try r0.withUnsafeBytes { r0Bytes in
                try r1.withUnsafeBytes { r1Bytes in
                    try VoicePacketWriter.write(
                        flags: flags, channel: channel, sender: sender, sequence: sequence, timestamp: timestamp,
                        primary: primaryBytes, redundant0: redundant0.map { ($0.0, r0Bytes) },
                        redundant1: redundant1.map { ($0.0, r1Bytes) }, into: output)
                }
            }
        }
    }
    return Array(buffer[0..<written])
}

func parsePacket(_ bytes: [UInt8]) throws -> VoicePacketView {
    try bytes.withUnsafeBytes { raw in try VoicePacketView(parsing: raw) }
}

/// The error parsing `bytes` as a voice packet throws, or nil when it parses.
func voiceParseError(_ bytes: [UInt8]) -> WireError? {
    do {
        _ = try parsePacket(bytes)
        return nil
    } catch let error as WireError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

func reportParseError(_ bytes: [UInt8]) -> WireError? {
    do {
        _ = try bytes.withUnsafeBytes { raw in try ReceiverReport(parsing: raw) }
        return nil
    } catch let error as WireError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

/// A well-formed 14-byte fixed header with the given flags byte, for hand-built malformed packets.
func header(flags: UInt8) -> [UInt8] {
    [0x11, flags, 0, 3, 0xDE, 0xAD, 0xBE, 0xEF, 0, 7, 0, 0, 0xBB, 0x80]
}
