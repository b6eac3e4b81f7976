/// The channel number voice packets carry for a named channel: the same on every engine, so
/// players that start the same name meet in the same channel without negotiating.
///
/// FNV-1a over the name's UTF-8 bytes, folded to 16 bits; 0 is reserved for the session's own
/// traffic and maps to 1. Two names of one match colliding is improbable (1 in 65 535 per pair);
/// a match refuses to open a second name with a number already in use.
public func channelNumber(named name: String) -> UInt16 {
    var hash: UInt32 = 2_166_136_261
    for byte in name.utf8 {
        hash ^= UInt32(byte)
        hash = hash &* 16_777_619
    }
    let folded = UInt16(truncatingIfNeeded: hash >> 16) ^ UInt16(truncatingIfNeeded: hash)
    return folded == 0 ? 1 : folded
}
