/// One earlier frame piggybacked on a voice packet, as a byte range of the parsed buffer.
public struct RedundantFrame: Sendable, Hashable {
    /// How many 48 kHz samples before the primary frame's timestamp this frame starts
    /// (960 = the previous 20 ms frame). Never 0 in a parsed packet.
    public var timestampOffset: UInt16
    /// The byte range of its Opus data in the parsed buffer.
    public var payload: Range<Int>

    public init(timestampOffset: UInt16, payload: Range<Int>) {
        self.timestampOffset = timestampOffset
        self.payload = payload
    }

    /// The placeholder held by a view's unused redundant slots.
    public static let none = RedundantFrame(timestampOffset: 0, payload: 0..<0)
}
