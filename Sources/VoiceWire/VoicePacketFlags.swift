/// The flag byte of a voice packet (byte 1).
///
/// Bits this version does not define are carried through unchanged and otherwise ignored, so a
/// later sender can add flags without breaking older receivers.
public struct VoicePacketFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The sender's speech gate says this frame is speech.
    public static let speaking = VoicePacketFlags(rawValue: 1 << 0)
    /// The first packet after silence or DTX: a jitter buffer may re-target its delay here.
    public static let talkSpurtStart = VoicePacketFlags(rawValue: 1 << 1)
    // Bit 2 is reserved. It once marked a packet carrying its own authentication tag; sealed
    // envelopes (`SealedEnvelopeHeader`) replaced that, so no sender sets it and a receiver
    // ignores it like any other unknown bit.
    /// A redundancy count byte and redundant frame descriptors follow the fixed header.
    ///
    /// `VoicePacketWriter` sets or clears this bit itself from the redundant frames it is given.
    public static let redundancy = VoicePacketFlags(rawValue: 1 << 3)
}
