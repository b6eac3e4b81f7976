import VoiceCore
import VoiceWire

extension EngineCore {
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

    /// Moves every channel of this participant in `session` to a new key (see `SenderKeys`),
    /// sending each present peer the new epochs.
    func rekey(_ session: Session, now: MediaTime) {
        let present = session.peers.values.filter { !$0.isGone && $0.pairwiseKey != nil }
        let grace = MediaTime.milliseconds(configuration.rekeyGraceSeconds * 1000)
        for (peer, pending) in session.senderKeys.rekey(present: present, grace: grace, now: now) {
            sendSignalling(.keys(session.reference, pending), to: peer.participant, in: session)
        }
    }

    func tickKeys(_ session: Session, now: MediaTime) {
        let rekeyIsDue = session.senderKeys.tick(now: now) { name in
            session.peers[name].map { !$0.isGone } ?? false
        }
        if rekeyIsDue { rekey(session, now: now) }
    }
}
