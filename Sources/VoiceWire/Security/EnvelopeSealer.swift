/// Seals one sender's envelopes on one channel.
///
/// A value type mutated by one thread at a time: it owns the counter, and two threads sealing
/// with copies of it would reuse nonces. Every envelope takes the next counter; the counter
/// restarts at 0 only with a new key, and sealing stops with `counterExhausted` rather than wrap.
public struct EnvelopeSealer: Sendable {
    public let sender: MediaID
    public let channel: ChannelNumber
    private var key: SenderKey
    /// The counter the next envelope will carry.
    public private(set) var nextCounter: UInt64

    public init(sender: MediaID, channel: ChannelNumber, key: SenderKey) {
        self.init(sender: sender, channel: channel, key: key, nextCounter: 0)
    }

    /// Starts at a given counter: only for tests of exhaustion, which cannot seal 2^64 envelopes.
    init(sender: MediaID, channel: ChannelNumber, key: SenderKey, nextCounter: UInt64) {
        self.sender = sender
        self.channel = channel
        self.key = key
        self.nextCounter = nextCounter
    }

    /// The epoch of the key envelopes are sealed under now.
    public var epoch: UInt8 { key.epoch }

    /// Switches to a new key (epoch); the counter restarts at 0.
    ///
    /// Installing the key already in use changes nothing, so a repeated install cannot make the
    /// counter, and with it the nonce, repeat. Every epoch must get a fresh `SenderKey.random`.
    public mutating func install(_ key: SenderKey) {
        guard key != self.key else { return }
        self.key = key
        nextCounter = 0
    }

    /// Writes header + ciphertext + tag into `output`; returns the envelope's byte count.
    ///
    /// `plaintext` may lie anywhere, even inside `output` (say, a voice packet written at offset
    /// `SealedEnvelopeHeader.encodedBytes` to be sealed in place): it is read before `output` is
    /// written.
    public mutating func seal(
        _ content: SealedContent, destination: MediaID, plaintext: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(SecurityError) -> Int {
        guard nextCounter != .max else { throw .counterExhausted }
        let headerBytes = SealedEnvelopeHeader.encodedBytes
        let total = SealedEnvelopeHeader.envelopeBytes(plaintextBytes: plaintext.count)
        guard output.count >= total else { throw .bufferTooSmall(needed: total, available: output.count) }

        let header = SealedEnvelopeHeader(
            content: content, channel: channel, sender: sender, destination: destination, epoch: key.epoch,
            counter: nextCounter)
        let body = output.baseAddress! + headerBytes
        // Moved (not copied) into place first, so that a plaintext anywhere in `output` survives.
        if let source = plaintext.baseAddress { body.copyMemory(from: source, byteCount: plaintext.count) }
        try! header.write(into: output)
        EnvelopeCipher.seal(
            body, count: plaintext.count, tag: body + plaintext.count,
            authenticating: UnsafeRawBufferPointer(rebasing: output[0..<headerBytes]), epoch: key.epoch,
            counter: nextCounter, key: key.material)
        nextCounter += 1
        return total
    }
}
