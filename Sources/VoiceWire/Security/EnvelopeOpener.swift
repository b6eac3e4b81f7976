/// Opens the envelopes of every sender this participant hears, on every channel.
///
/// Holds, per (sender, channel), the sender's current key and the one before it, each with its own
/// replay window: while a sender rekeys, envelopes under both epochs open, so nothing is lost in
/// the switch; an epoch older than those two is refused. A value type mutated by one thread at a
/// time (the one that receives datagrams).
public struct EnvelopeOpener: Sendable {
    private struct Slot: Sendable {
        var key: SenderKey
        var window = ReplayWindow()

        /// Checks the replay window, authenticates and decrypts, then records the counter.
        mutating func open(
            _ datagram: UnsafeRawBufferPointer, header: SealedEnvelopeHeader,
            into plaintext: UnsafeMutableRawBufferPointer
        ) throws(SecurityError) -> Int {
            try window.check(header.counter)

            let headerBytes = SealedEnvelopeHeader.encodedBytes
            let bodyEnd = datagram.count - SealedEnvelopeHeader.tagBytes
            let plaintextBytes = bodyEnd - headerBytes
            guard plaintext.count >= plaintextBytes else {
                throw .bufferTooSmall(needed: plaintextBytes, available: plaintext.count)
            }
            let opened = EnvelopeCipher.open(
                UnsafeRawBufferPointer(rebasing: datagram[headerBytes..<bodyEnd]),
                tag: datagram.baseAddress! + bodyEnd,
                authenticating: UnsafeRawBufferPointer(rebasing: datagram[0..<headerBytes]),
                into: plaintext.baseAddress!, epoch: header.epoch, counter: header.counter, key: key.material)
            guard opened else { throw .authenticationFailed }

            // Only now, with the envelope proven genuine, may it move the window.
            window.accept(header.counter)
            return plaintextBytes
        }
    }

    private struct Keys: Sendable {
        var current: Slot
        var previous: Slot?

        /// Opens with the slot of the envelope's epoch, in place, so that its window moves.
        mutating func open(
            _ datagram: UnsafeRawBufferPointer, header: SealedEnvelopeHeader,
            into plaintext: UnsafeMutableRawBufferPointer
        ) throws(SecurityError) -> Int {
            if current.key.epoch == header.epoch {
                return try current.open(datagram, header: header, into: plaintext)
            }
            if previous?.key.epoch == header.epoch,
                let plaintextBytes = try previous?.open(datagram, header: header, into: plaintext)
            {
                return plaintextBytes
            }
            throw .unknownEpoch(header.epoch)
        }
    }

    private struct Stream: Hashable, Sendable {
        var sender: MediaID
        var channel: ChannelNumber
    }

    private var streams: [Stream: Keys] = [:]
    /// How many channels each sender has keys on, to tell an unknown sender from an unknown channel.
    private var senders: [MediaID: Int] = [:]
    public private(set) var statistics = OpenStatistics()

    public init() {}

    /// Installs a key of `sender` on `channel`; keeps it and the sender's previous key.
    ///
    /// A key with the epoch of one already held replaces that one in place (a repeated delivery of
    /// the same key changes nothing, and keeps its replay window). Any other epoch becomes current
    /// and the current one becomes previous; the one before is forgotten.
    public mutating func install(_ key: SenderKey, sender: MediaID, channel: ChannelNumber) {
        let stream = Stream(sender: sender, channel: channel)
        guard var keys = streams[stream] else {
            streams[stream] = Keys(current: Slot(key: key))
            senders[sender, default: 0] += 1
            return
        }
        if keys.current.key.epoch == key.epoch {
            if keys.current.key != key { keys.current = Slot(key: key) }
        } else if let previous = keys.previous, previous.key.epoch == key.epoch {
            if previous.key != key { keys.previous = Slot(key: key) }
        } else {
            keys.previous = keys.current
            keys.current = Slot(key: key)
        }
        streams[stream] = keys
    }

    /// Forgets every key of `sender` (a member left).
    public mutating func remove(sender: MediaID) {
        guard senders.removeValue(forKey: sender) != nil else { return }
        streams = streams.filter { $0.key.sender != sender }
    }

    /// Forgets `sender`'s keys on one channel (it stopped talking there, or this participant left it).
    public mutating func remove(sender: MediaID, channel: ChannelNumber) {
        guard streams.removeValue(forKey: Stream(sender: sender, channel: channel)) != nil else { return }
        let remaining = (senders[sender] ?? 1) - 1
        senders[sender] = remaining > 0 ? remaining : nil
    }

    /// The epochs held for `sender` on `channel`: current first, then previous.
    public func epochs(sender: MediaID, channel: ChannelNumber) -> [UInt8] {
        guard let keys = streams[Stream(sender: sender, channel: channel)] else { return [] }
        return [keys.current.key.epoch] + (keys.previous.map { [$0.key.epoch] } ?? [])
    }

    /// Authenticates and decrypts; the replay window is only advanced after authentication succeeds.
    ///
    /// Writes the plaintext to the start of `plaintext` (which needs at least the envelope's size
    /// minus `SealedEnvelopeHeader.encodedBytes + tagBytes`) and counts the outcome.
    public mutating func open(_ datagram: UnsafeRawBufferPointer, into plaintext: UnsafeMutableRawBufferPointer)
        throws(SecurityError) -> (header: SealedEnvelopeHeader, plaintextBytes: Int)
    {
        let header: SealedEnvelopeHeader
        do { header = try SealedEnvelopeHeader(parsing: datagram) } catch { throw counted(.wire(error)) }
        return (header, try open(datagram, header: header, into: plaintext))
    }

    /// `open(_:into:)` for a datagram whose clear header the caller already parsed (`header` must be
    /// `SealedEnvelopeHeader(parsing: datagram)`); returns the plaintext's byte count.
    public mutating func open(
        _ datagram: UnsafeRawBufferPointer, header: SealedEnvelopeHeader, into plaintext: UnsafeMutableRawBufferPointer
    ) throws(SecurityError) -> Int {
        do {
            let plaintextBytes = try authenticateAndDecrypt(datagram, header: header, into: plaintext)
            statistics.opened += 1
            return plaintextBytes
        } catch {
            throw counted(error)
        }
    }

    private mutating func counted(_ error: SecurityError) -> SecurityError {
        switch error {
        case .authenticationFailed: statistics.authenticationFailures += 1
        case .replayed: statistics.replays += 1
        case .tooOld: statistics.tooOld += 1
        case .unknownSender, .unknownChannel, .unknownEpoch: statistics.unknownKey += 1
        case .wire: statistics.malformed += 1
        case .bufferTooSmall: statistics.outputTooSmall += 1
        case .invalidPublicKey, .emptySession, .invalidWrappedKey, .invalidKeyLength, .counterExhausted:
            assertionFailure("opening cannot fail with \(error)")
        }
        return error
    }

    private mutating func authenticateAndDecrypt(
        _ datagram: UnsafeRawBufferPointer, header: SealedEnvelopeHeader, into plaintext: UnsafeMutableRawBufferPointer
    ) throws(SecurityError) -> Int {
        // True of a datagram `header` was parsed from; a caller's mismatch must not make the slicing trap.
        let needed = SealedEnvelopeHeader.encodedBytes + SealedEnvelopeHeader.tagBytes
        guard datagram.count >= needed else {
            throw .wire(.envelopeTooShort(bytes: datagram.count, needed: needed))
        }
        let stream = Stream(sender: header.sender, channel: header.channel)
        guard let index = streams.index(forKey: stream) else {
            if senders[header.sender] == nil { throw .unknownSender(header.sender) }
            throw .unknownChannel(sender: header.sender, channel: header.channel)
        }
        // One mutating access: reading the keys first would copy them, key material and all.
        return try streams.values[index].open(datagram, header: header, into: plaintext)
    }
}
