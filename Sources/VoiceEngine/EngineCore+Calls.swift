import VoiceCore
import VoiceWire

/// The channel number of a 1:1 call's voice.
let callChannel: UInt16 = 1

extension EngineCore {
    /// The call (invited, ringing, connecting or up) with `other`, if any: there is at most one.
    func callSession(with other: ParticipantID) -> Session? {
        sessions.values.first { $0.isCall && $0.peers[other] != nil }
    }

    func startCall(
        with other: ParticipantID, client: any VoiceChatClient, events: SessionEvents, keys: SessionKeyPair,
        now: MediaTime, random: inout some RandomNumberGenerator
    ) throws(VoiceChatError) -> CallID {
        guard other != participant else { throw .callingSelf }
        guard callSession(with: other) == nil else { throw .alreadyInCall(with: other) }
        let call = (0..<16).map { _ in String(UInt8.random(in: 0...255, using: &random), radix: 16) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let session = Session(reference: .call(call), client: client, events: events, keys: keys)
        session.peers[other] = RemotePeer(participant: other)
        try prepareCallMedia(session)
        session.phase = .inviting(
            deadline: now + MediaTime.milliseconds(configuration.invitationTimeoutSeconds * 1000))
        sessions[session.reference] = session
        sendSignalling(.invite(call: call, offer: offer(for: session)), to: other, in: session)
        return call
    }

    /// What accepting `call` needs for its pairwise key, to be worked out on the caller's thread; nil if
    /// it is not an invitation.
    func pairwiseKeyInputs(forAccepting call: CallID) -> (KeyAgreement, PairwiseKeyAgreement.Inputs)? {
        guard let session = sessions[.call(call)], session.phase == .invited, let offer = session.pendingOffer,
            let peer = session.peers.values.first
        else { return nil }
        return (session.keyAgreement, pairwiseKeyInputs(peerPublicKey: offer.publicKey, peer: peer, in: session))
    }

    func acceptCall(_ call: CallID, agreed: PairwiseKeyAgreement? = nil, now: MediaTime) throws(VoiceChatError) {
        guard let session = sessions[.call(call)] else { throw .unknownCall(call) }
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
            .accept(call: call, offer: self.offer(for: session), keys: wrappedKeys(for: peer, in: session)),
            to: other, in: session)
        session.peers[other]?.paths = makePaths(for: offer, in: session, now: now)
        session.pendingOffer = nil
        session.phase = .connecting(deadline: now + MediaTime.milliseconds(configuration.pathTimeoutSeconds * 1000))
    }

    func denyCall(_ call: CallID) throws(VoiceChatError) {
        guard let session = sessions[.call(call)] else { throw .unknownCall(call) }
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
    private func prepareCallMedia(_ session: Session) throws(VoiceChatError) {
        guard session.channels[callChannel] == nil else { return }
        createOwnKey(channel: 0, in: session)
        createOwnKey(channel: callChannel, in: session)
        let mixerChannel = try allocateMixerChannel(name: "call \(session.identifier)")
        session.channels[callChannel] = LocalChannel(
            number: callChannel, name: "call", mixerChannel: mixerChannel, isStarted: true)
        do {
            try mixer.start(channel: mixerChannel)
            try mixer.setVolume(remoteParticipantVolume, channel: mixerChannel)
        } catch {
            throw .media(error.description)
        }
        session.activeChannel = callChannel
        try rebuildSendPipeline(session)
    }

    /// Calls that waited too long for an answer or a path end here.
    func tickCall(_ session: Session, now: MediaTime) {
        guard session.isCall, let other = session.peers.keys.first else { return }
        switch session.phase {
        case .inviting(let deadline) where now >= deadline:
            sendSignalling(.end(call: session.identifier, reason: .timedOut), to: other, in: session)
            emit(.didNotStart(call: session.identifier, with: other, reason: .timedOut), in: session)
            removeSession(session)
        case .connecting(let deadline) where now >= deadline && session.peers[other]?.activeRoute == nil:
            sendSignalling(.end(call: session.identifier, reason: .noRealTimePath), to: other, in: session)
            emit(.didNotStart(call: session.identifier, with: other, reason: .noRealTimePath), in: session)
            removeSession(session)
        default:
            break
        }
    }

    func setRemoteParticipantVolume(_ volume: Float) throws(VoiceChatError) {
        guard volume.isFinite, (0...1).contains(volume) else {
            throw .outOfRange("remote participant volume \(volume) is outside 0…1")
        }
        remoteParticipantVolume = volume
        for session in sessions.values where session.isCall {
            if let channel = session.channels[callChannel] {
                try? mixer.setVolume(volume, channel: channel.mixerChannel)
            }
        }
    }
}
