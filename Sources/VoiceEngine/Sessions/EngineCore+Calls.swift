import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceWire

extension EngineCore {
    /// The call (invited, ringing, connecting or up) with `other`, if any: there is at most one.
    func callSession(with other: ParticipantID) -> CallSession? {
        for case let call as CallSession in sessions.values where call.peers[other] != nil { return call }
        return nil
    }

    /// The call of that ID, if any.
    func callSession(_ call: CallID) -> CallSession? { sessions[.call(call)] as? CallSession }

    func startCall(
        with other: ParticipantID, client: any VoiceChatClient, events: EventSink<VoiceChatEvent>, keys: SessionKeyPair,
        now: MediaTime, random: inout some RandomNumberGenerator
    ) throws(VoiceChatError) -> CallID {
        guard other != participant else { throw .callingSelf }
        guard callSession(with: other) == nil else { throw .alreadyInCall(with: other) }
        let call = (0..<16).map { _ in String(UInt8.random(in: 0...255, using: &random), radix: 16) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let session = CallSession(
            id: call, sender: mediaID, with: RemotePeer(participant: other),
            phase: .inviting(deadline: now + MediaTime.milliseconds(configuration.invitationTimeoutSeconds * 1000)),
            client: client, events: events, keys: keys)
        try prepareCallMedia(session)
        sessions[session.reference] = session
        sendSignalling(.invite(call: call, offer: offer(for: session)), to: other, in: session)
        return call
    }

    /// What accepting `call` needs for its pairwise key, to be worked out on the caller's thread; nil if
    /// it is not an invitation.
    func pairwiseKeyInputs(forAccepting call: CallID) -> (KeyAgreement, PairwiseKeyAgreement.Inputs)? {
        guard let session = callSession(call), session.phase == .invited, let offer = session.pendingOffer,
            let peer = session.peers.values.first
        else { return nil }
        return (session.keyAgreement, pairwiseKeyInputs(peerPublicKey: offer.publicKey, peer: peer, in: session))
    }

    func acceptCall(_ call: CallID, agreed: PairwiseKeyAgreement? = nil, now: MediaTime) throws(VoiceChatError) {
        guard let session = callSession(call) else { throw .unknownCall(call) }
        guard session.phase == .invited, let offer = session.pendingOffer, let other = session.peers.keys.first
        else { throw .notAnInvitation(call) }
        try prepareCallMedia(session)
        do {
            try agreePairwiseKey(with: other, publicKey: offer.publicKey, in: session, agreed: agreed)
        } catch {
            // The caller's key is unusable: the call cannot be set up.
            sendSignalling(.end(call: call, reason: .noRealTimePath), to: other, in: session)
            emit(.didNotStart(call: call, with: other, reason: .noRealTimePath), in: session)
            removeSession(session)
            return
        }
        guard let peer = session.peers[other] else { return }
        sendSignalling(
            .accept(call: call, offer: self.offer(for: session), keys: session.senderKeys.wrapped(for: peer)),
            to: other, in: session)
        session.peers[other]?.paths = makePaths(for: offer, in: session, now: now)
        session.pendingOffer = nil
        session.phase = .connecting(deadline: now + MediaTime.milliseconds(configuration.pathTimeoutSeconds * 1000))
    }

    func denyCall(_ call: CallID) throws(VoiceChatError) {
        guard let session = callSession(call) else { throw .unknownCall(call) }
        guard session.phase == .invited, let other = session.peers.keys.first else { throw .notAnInvitation(call) }
        sendSignalling(.end(call: call, reason: .denied), to: other, in: session)
        removeSession(session)
    }

    func stopCall(with other: ParticipantID) throws(VoiceChatError) {
        guard let session = callSession(with: other) else { throw .noCall(with: other) }
        let reason: CallEndReason = session.phase == .invited ? .denied : .hungUp
        sendSignalling(.end(call: session.identifier, reason: reason), to: other, in: session)
        if session.hasStarted {
            emit(.stopped(call: session.identifier, with: other, reason: .hungUp), in: session)
        } else if session.phase != .invited {
            emit(.didNotStart(call: session.identifier, with: other, reason: .hungUp), in: session)
        }
        removeSession(session)
    }

    /// Keys, mixer channel and encoder of a call, made once per call.
    private func prepareCallMedia(_ session: CallSession) throws(VoiceChatError) {
        guard session.channels[callChannel] == nil else { return }
        session.senderKeys.create(channel: .session)
        session.senderKeys.create(channel: callChannel)
        let mixerChannel = try allocateMixerChannel(name: "call \(session.identifier)")
        session.channels[callChannel] = LocalChannel(
            number: callChannel, name: "call", mixerChannel: mixerChannel, isStarted: true)
        do throws(MixerError) {
            try mixer.start(channel: mixerChannel)
            try mixer.setVolume(remoteParticipantVolume, channel: mixerChannel)
        } catch {
            throw .mixer(error)
        }
        session.activeChannel = callChannel
        try rebuildSendPipeline(session)
    }

    func setRemoteParticipantVolume(_ volume: Float) throws(VoiceChatError) {
        guard volume.isFinite, (0...1).contains(volume) else {
            throw .outOfRange("remote participant volume \(volume) is outside 0…1")
        }
        remoteParticipantVolume = volume
        for session in sessions.values { session.remoteParticipantVolumeChanged(volume, mixer: mixer) }
    }
}
