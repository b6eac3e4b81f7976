/// Cuts a TCP byte stream into frames. Pure: bytes in, frames out, so it is tested without sockets.
///
/// A frame is returned once all its bytes are there; an oversized length is refused as soon as the
/// length field is read, before anything is buffered for it.
public struct SignallingFrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    /// Bytes of `buffer` already consumed; compacted lazily so that many small frames cost no copying each.
    private var consumed = 0
    /// The longest frame taken (its kind and payload); a longer length field is refused on arrival.
    public var maximumLength = SignallingFrame.maximumLength + 1

    public init() {}

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received that no returned frame has used yet.
    public var bufferedBytes: Int { buffer.count - consumed }

    /// The next complete frame, or nil until more bytes arrive.
    public mutating func next() throws(SignallingFrameError) -> SignallingFrame? {
        let available = buffer.count - consumed
        guard available >= 4 else { return nil }
        let start = consumed
        let length = lengthField(at: start)
        guard length > 0 else { throw .emptyFrame }
        guard length <= maximumLength else { throw .oversize(kind: nil, length: length, maximum: maximumLength) }
        guard available >= 4 + length else { return nil }
        let frame = try SignallingFrame(kind: buffer[start + 4], payload: buffer[(start + 5)..<(start + 4 + length)])
        consumed += 4 + length
        if consumed == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            consumed = 0
        } else if consumed > 64 * 1024 {
            buffer.removeFirst(consumed)
            consumed = 0
        }
        return frame
    }

    /// Call when the stream has ended: bytes of an unfinished frame are an error.
    public func finish() throws(SignallingFrameError) {
        let available = buffer.count - consumed
        guard available > 0 else { return }
        guard available >= 4 else { throw .truncated(kind: nil, needed: 4, available: available) }
        let start = consumed
        let length = lengthField(at: start)
        let kind = available > 4 ? SignallingFrame.Kind(rawValue: buffer[start + 4]) : nil
        throw .truncated(kind: kind, needed: 4 + length, available: available)
    }

    /// The big-endian length field of the frame that starts at `start` (four bytes must be there).
    private func lengthField(at start: Int) -> Int {
        Int(buffer[start]) << 24 | Int(buffer[start + 1]) << 16 | Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
    }
}
