import VoiceCore
import VoiceWire

extension EngineCore {
    /// Creates this participant's first key for `channel` in `session`.
    func createOwnKey(channel: ChannelNumber, in session: Session) {
        guard session.ownKeys[channel] == nil else { return }
        let key = SenderKey.random(epoch: 0)
        session.ownKeys[channel] = OwnSenderKey(current: key)
        session.sealers[channel] = EnvelopeSealer(sender: mediaID, channel: channel, key: key)
    }

    /// Every key a peer needs to open what this participant sends, wrapped for that peer: the
    /// current epochs, and the pending ones of a rekey in progress.
    func wrappedKeys(for peer: RemotePeer, channels: [ChannelNumber]? = nil, in session: Session) -> [WrappedSenderKey]
    {
        guard let pairwise = peer.pairwiseKey else { return [] }
        var wrapped: [WrappedSenderKey] = []
        for channel in (channels ?? session.ownKeys.keys.sorted()) {
            guard let own = session.ownKeys[channel] else { continue }
            for key in [own.current] + (own.pending.map { [$0] } ?? []) {
                wrapped.append(
                    WrappedSenderKey(
                        channel: channel, epoch: key.epoch,
                        bytes: pairwise.wrap(key, sender: mediaID, channel: channel)))
            }
        }
        return wrapped
    }

    /// Derives the pairwise key with a peer from its offer, or takes it from `agreed` if that was
    /// worked out from the same inputs.
    func agreePairwiseKey(
        with name: ParticipantID, publicKey: [UInt8], in session: Session, agreed: PairwiseKeyAgreement? = nil
    ) throws(SignallingError) {
        guard let peer = session.peers[name] else { throw .notAParticipant(name) }
        let inputs = pairwiseKeyInputs(peerPublicKey: publicKey, peer: peer, in: session)
        do {
            peer.pairwiseKey =
                try
                (agreed?.key(for: inputs)
                ?? PairwiseKeyAgreement(session.keyAgreement, inputs: inputs).key).get()
        } catch {
            throw .badKey("the public key of \"\(name)\" is unusable: \(error)")
        }
        peer.publicKey = publicKey
    }

    func pairwiseKeyInputs(peerPublicKey: [UInt8], peer: RemotePeer, in session: Session)
        -> PairwiseKeyAgreement.Inputs
    {
        PairwiseKeyAgreement.Inputs(
            ownPublicKey: session.publicKey, peerPublicKey: peerPublicKey, salt: session.salt, local: mediaID,
            remote: peer.mediaID)
    }

    /// Installs a peer's wrapped keys; returns the epochs installed. `unwrapped` holds them opened
    /// already (off the engine thread), if they were opened with the peer's pairwise key of now.
    @discardableResult
    func installKeys(
        _ keys: [WrappedSenderKey], from name: ParticipantID, in session: Session, unwrapped: UnwrappedSenderKeys? = nil
    ) throws(SignallingError) -> [WrappedSenderKey] {
        guard let peer = session.peers[name] else { throw .notAParticipant(name) }
        guard let pairwise = peer.pairwiseKey else {
            throw .badKey("keys from \"\(name)\" arrived before its public key")
        }
        let opened = unwrapped.flatMap { $0.pairwise == pairwise && $0.keys.count == keys.count ? $0 : nil }
        for (index, wrapped) in keys.enumerated() {
            let key: SenderKey
            do throws(SecurityError) {
                if let opened {
                    key = try opened.keys[index].get()
                } else {
                    key = try pairwise.unwrap(wrapped.bytes, sender: peer.mediaID, channel: wrapped.channel)
                }
            } catch {
                throw .badKey("a key from \"\(name)\" for channel \(wrapped.channel) does not open: \(error)")
            }
            guard key.epoch == wrapped.epoch else {
                throw .badKey("a key from \"\(name)\" claims epoch \(wrapped.epoch) but is epoch \(key.epoch)")
            }
            session.incoming.opener.install(key, sender: peer.mediaID, channel: wrapped.channel)
        }
        return opened?.installed ?? keys.map { WrappedSenderKey(channel: $0.channel, epoch: $0.epoch, bytes: []) }
    }

    /// The pairwise key `sender` has in `reference`'s session now, to open its keys with.
    func pairwiseKey(of sender: ParticipantID, in reference: SessionReference) -> PairwiseKey? {
        sessions[reference]?.peers[sender]?.pairwiseKey
    }

    /// Starts moving every channel of this participant in `session` to a new key. Peers get the
    /// new epoch at once and keep opening the old one; sealing switches when all of them said they
    /// have it, or after the grace time: no packet is ever sealed under a key a listener lacks.
    func rekey(_ session: Session, now: MediaTime) {
        let present = session.peers.values.filter { !$0.isGone && $0.pairwiseKey != nil }
        for channel in session.ownKeys.keys {
            guard var own = session.ownKeys[channel] else { continue }
            let next = SenderKey.random(epoch: (own.pending ?? own.current).epoch &+ 1)
            own.pending = next
            own.awaiting = Set(present.map(\.participant))
            own.switchDeadline = now + MediaTime.milliseconds(configuration.rekeyGraceSeconds * 1000)
            session.ownKeys[channel] = own
        }
        for peer in present {
            let pending = session.ownKeys.keys.sorted().compactMap { channel -> WrappedSenderKey? in
                guard let key = session.ownKeys[channel]?.pending, let pairwise = peer.pairwiseKey else { return nil }
                return WrappedSenderKey(
                    channel: channel, epoch: key.epoch, bytes: pairwise.wrap(key, sender: mediaID, channel: channel))
            }
            if !pending.isEmpty { sendSignalling(.keys(session.reference, pending), to: peer.participant, in: session) }
        }
    }

    /// A peer confirmed epochs of this participant's keys.
    func keysConfirmed(_ keys: [WrappedSenderKey], by name: ParticipantID, in session: Session) {
        for key in keys {
            guard var own = session.ownKeys[key.channel], own.pending?.epoch == key.epoch else { continue }
            own.awaiting.remove(name)
            session.ownKeys[key.channel] = own
        }
    }

    func tickKeys(_ session: Session, now: MediaTime) {
        // Iterates a snapshot of the keys: switching a channel's key below changes `ownKeys`.
        for channel in session.ownKeys.keys {
            guard var own = session.ownKeys[channel], let pending = own.pending else { continue }
            let stillNeeded = own.awaiting.contains { session.peers[$0].map { !$0.isGone } ?? false }
            guard !stillNeeded || now >= own.switchDeadline else { continue }
            own.current = pending
            own.pending = nil
            own.awaiting = []
            session.ownKeys[channel] = own
            session.sealers[channel]?.install(pending)
        }
        // Players who left since the last rekey share one new key, and only once the previous
        // rekey has switched: a listener holds two epochs, the one in use and the next, so a third
        // handed over before the switch (several leaving in one tick, or one leaving while a
        // rekey still waits for a confirmation) pushed out the one still sealed under. A player
        // who left meanwhile holds the pending key, so it is in use only until this rekey switches.
        if session.needsRekey && !session.hasPendingKey {
            session.needsRekey = false
            rekey(session, now: now)
        }
    }
}
