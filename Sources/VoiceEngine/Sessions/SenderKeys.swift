import VoiceCore
import VoiceWire

/// This participant's sender keys in one session, by channel (`ChannelNumber.session` for the
/// session's own traffic), the sealers that use them, and the rekey that moves every channel to
/// a new epoch when a player leaves. Peers get a new epoch at once and keep opening the old one;
/// sealing switches when all of them said they have it, or after the grace time: no packet is
/// ever sealed under a key a listener lacks.
///
/// Owned by its `Session`; one thread at a time.
final class SenderKeys {
    private let sender: MediaID
    private var own: [ChannelNumber: OwnSenderKey] = [:]
    private var sealers: [ChannelNumber: EnvelopeSealer] = [:]
    /// Set when players left: a tick moves every channel to a new key once, however many left
    /// since the last rekey, as soon as no earlier rekey is still waiting to switch.
    var needsRekey = false
    /// True while some channel's new key waits to be sealed under.
    var hasPendingKey: Bool { own.values.contains { $0.pending != nil } }
    /// True from a departure until every channel seals under the key it brought.
    var isChanging: Bool { needsRekey || hasPendingKey }

    init(sender: MediaID) {
        self.sender = sender
    }

    /// Creates the first key for `channel`, unless it has one.
    func create(channel: ChannelNumber) {
        guard own[channel] == nil else { return }
        let key = SenderKey.random(epoch: 0)
        own[channel] = OwnSenderKey(current: key)
        sealers[channel] = EnvelopeSealer(sender: sender, channel: channel, key: key)
    }

    /// Every key `peer` needs to open what this participant sends (on `channels`, or all),
    /// wrapped for it: the current epochs, and the pending ones of a rekey in progress.
    func wrapped(for peer: RemotePeer, channels: [ChannelNumber]? = nil) -> [WrappedSenderKey] {
        guard let pairwise = peer.pairwiseKey else { return [] }
        var wrapped: [WrappedSenderKey] = []
        for channel in (channels ?? own.keys.sorted()) {
            guard let key = own[channel] else { continue }
            for epoch in [key.current] + (key.pending.map { [$0] } ?? []) {
                wrapped.append(
                    WrappedSenderKey(
                        channel: channel, epoch: epoch.epoch,
                        bytes: pairwise.wrap(epoch, sender: sender, channel: channel)))
            }
        }
        return wrapped
    }

    /// Seals `plaintext` for `destination` (or everyone in the channel) under the key for
    /// `channel` into `buffer`, and returns the envelope, or nil when there is no key.
    func seal(
        _ content: SealedContent, channel: ChannelNumber, destination: MediaID, plaintext: UnsafeRawBufferPointer,
        into buffer: UnsafeMutableRawBufferPointer
    ) -> UnsafeRawBufferPointer? {
        // Only counter exhaustion can fail here; a rekey gives a fresh counter.
        let count = sealers.modifyValue(forKey: channel) { sealer in
            try? sealer.seal(content, destination: destination, plaintext: plaintext, into: buffer)
        }
        guard let count, let count else { return nil }
        return UnsafeRawBufferPointer(rebasing: buffer[0..<count])
    }

    /// Starts moving every channel to a new epoch, which `present` must confirm within `grace`;
    /// returns the pending keys to send each of them, wrapped for it.
    func rekey(present: [RemotePeer], grace: MediaTime, now: MediaTime) -> [(RemotePeer, [WrappedSenderKey])] {
        for channel in own.keys {
            guard var key = own[channel] else { continue }
            let next = SenderKey.random(epoch: (key.pending ?? key.current).epoch &+ 1)
            key.pending = next
            key.awaiting = Set(present.map(\.participant))
            key.switchDeadline = now + grace
            own[channel] = key
        }
        return present.compactMap { peer in
            let pending = own.keys.sorted().compactMap { channel -> WrappedSenderKey? in
                guard let key = own[channel]?.pending, let pairwise = peer.pairwiseKey else { return nil }
                return WrappedSenderKey(
                    channel: channel, epoch: key.epoch, bytes: pairwise.wrap(key, sender: sender, channel: channel))
            }
            return pending.isEmpty ? nil : (peer, pending)
        }
    }

    /// `name` confirmed epochs of these keys.
    func confirmed(_ keys: [WrappedSenderKey], by name: ParticipantID) {
        for confirmed in keys {
            guard var key = own[confirmed.channel], key.pending?.epoch == confirmed.epoch else { continue }
            key.awaiting.remove(name)
            own[confirmed.channel] = key
        }
    }

    /// Switches each channel whose pending key every present listener (`isPresent`) has, or
    /// whose grace ran out, to it; returns whether a rekey is due now.
    func tick(now: MediaTime, isPresent: (ParticipantID) -> Bool) -> Bool {
        // Iterates a snapshot of the keys: switching a channel's key below changes `own`.
        for channel in own.keys {
            guard var key = own[channel], let pending = key.pending else { continue }
            let stillNeeded = key.awaiting.contains(where: isPresent)
            guard !stillNeeded || now >= key.switchDeadline else { continue }
            key.current = pending
            key.pending = nil
            key.awaiting = []
            own[channel] = key
            sealers[channel]?.install(pending)
        }
        // Players who left since the last rekey share one new key, and only once the previous
        // rekey has switched: a listener holds two epochs, the one in use and the next, so a third
        // handed over before the switch (several leaving in one tick, or one leaving while a
        // rekey still waits for a confirmation) pushed out the one still sealed under. A player
        // who left meanwhile holds the pending key, so it is in use only until this rekey switches.
        guard needsRekey && !hasPendingKey else { return false }
        needsRekey = false
        return true
    }
}
