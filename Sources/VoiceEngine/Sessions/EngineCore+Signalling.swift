import VoiceCore
import VoiceTransport
import VoiceWire

extension EngineCore {
    /// Handles one signalling message from `sender`, carried by the app of `session`'s kind, as
    /// decoded on the thread that received it (JSON is no work for the engine thread).
    /// A refused message changes nothing, is counted, and is reported as an event.
    /// `agreed` is the pairwise key the message needs, and `keys` the key pair of the call it
    /// invites to, both made on that thread (see `pairwiseKeyInputs(for:from:)`); `unwrapped`,
    /// the sender keys a `keys` message carries, opened there.
    func receiveSignalling(
        _ decoded: Result<SignallingMessage, SignallingError>, from sender: ParticipantID,
        client: any VoiceChatClient, events: SessionEvents, agreed: PairwiseKeyAgreement? = nil,
        keys: SessionKeyPair? = nil, unwrapped: UnwrappedSenderKeys? = nil, now: MediaTime
    ) {
        do {
            let message = try decoded.get()
            try handle(
                message, from: sender, client: client, events: events, agreed: agreed, keys: keys,
                unwrapped: unwrapped, now: now)
        } catch {
            counters.signallingRejected += 1
            switch events {
            case .call(let sink): outbox.append(.callEvent(.signallingRejected(from: sender, error: error), sink))
            case .match(let sink): outbox.append(.matchEvent(.signallingRejected(from: sender, error: error), sink))
            }
        }
    }

    /// What a message needs for a pairwise key, if it needs one: an `accept` of our call, or a
    /// `hello` with a key the player did not have. Nil for anything else, or a message that will
    /// be refused.
    func pairwiseKeyInputs(
        for decoded: Result<SignallingMessage, SignallingError>, from sender: ParticipantID
    ) -> (KeyAgreement, PairwiseKeyAgreement.Inputs)? {
        let session: Session?
        let peerPublicKey: [UInt8]
        switch decoded {
        case .success(.accept(let call, let offer, _)):
            session = callSession(call)
            peerPublicKey = offer.publicKey
        case .success(.hello(let match, let offer, _)):
            session = matchSession(match)
            peerPublicKey = offer.publicKey
            guard session?.peers[sender]?.publicKey != offer.publicKey else { return nil }
        default:
            return nil
        }
        guard let session, let peer = session.peers[sender] else { return nil }
        return (session.keyAgreement, pairwiseKeyInputs(peerPublicKey: peerPublicKey, peer: peer, in: session))
    }

    private func handle(
        _ message: SignallingMessage, from sender: ParticipantID, client: any VoiceChatClient, events: SessionEvents,
        agreed: PairwiseKeyAgreement?, keys: SessionKeyPair?, unwrapped: UnwrappedSenderKeys?, now: MediaTime
    ) throws(SignallingError) {
        switch message {
        case .invite(let call, let offer):
            try receiveInvitation(
                call, offer: offer, from: sender, client: client, events: events, keys: keys ?? SessionKeyPair())
        case .accept(let call, let offer, let keys):
            let session = try callSession(call, from: sender)
            guard case .inviting = session.phase else {
                throw .wrongState(call: call, state: session.phase.description, message: "accept")
            }
            try agreePairwiseKey(with: sender, publicKey: offer.publicKey, in: session, agreed: agreed)
            try installKeys(keys, from: sender, in: session)
            if let peer = session.peers[sender] {
                sendSignalling(.keys(session.reference, session.senderKeys.wrapped(for: peer)), to: sender, in: session)
            }
            session.peers[sender]?.paths = makePaths(for: offer, in: session, now: now)
            session.phase = .connecting(deadline: now + MediaTime.milliseconds(configuration.pathTimeoutSeconds * 1000))
        case .end(let call, let reason):
            let session = try callSession(call, from: sender)
            session.ended(by: sender, reason: reason, core: self)
        case .keys(let reference, let keys):
            let session = try knownSession(reference, from: sender)
            let installed = try installKeys(keys, from: sender, in: session, unwrapped: unwrapped)
            sendSignalling(.keysInstalled(reference, installed), to: sender, in: session)
        case .keysInstalled(let reference, let keys):
            let session = try knownSession(reference, from: sender)
            session.senderKeys.confirmed(keys, by: sender)
        case .hello(let match, let offer, let channels):
            let session = try matchSession(match, from: sender)
            try receiveHello(offer, channels: channels, from: sender, in: session, agreed: agreed, now: now)
        case .channel(let match, let announcement):
            let session = try matchSession(match, from: sender)
            if announcement.isStarted {
                session.peers[sender]?.startedChannels.insert(announcement.number)
            } else {
                session.peers[sender]?.startedChannels.remove(announcement.number)
                if let peer = session.peers[sender] {
                    removeStreams(in: session) { $0.sender == peer.mediaID && $0.channel == announcement.number }
                }
            }
            updatePlayerStates(session)
        case .bye(let match):
            let session = try matchSession(match, from: sender)
            peerGone(sender, in: session)
        case .gameData(let match, let data):
            let session = try matchSession(match, from: sender)
            emit(.data(data, from: sender, mode: .reliable), in: session)
        }
    }

    private func callSession(_ call: String, from sender: ParticipantID) throws(SignallingError) -> CallSession {
        guard let session = callSession(call) else { throw .unknownCall(call) }
        guard session.peers[sender] != nil else { throw .notAParticipant(sender) }
        return session
    }

    private func matchSession(_ match: String, from sender: ParticipantID) throws(SignallingError) -> MatchSession {
        guard let session = matchSession(match) else { throw .unknownMatch(match) }
        guard session.peers[sender] != nil else { throw .notAParticipant(sender) }
        return session
    }

    private func knownSession(_ reference: SessionReference, from sender: ParticipantID) throws(SignallingError)
        -> Session
    {
        guard let session = sessions[reference] else {
            switch reference {
            case .call(let id): throw .unknownCall(id)
            case .match(let id): throw .unknownMatch(id)
            }
        }
        guard session.peers[sender] != nil else { throw .notAParticipant(sender) }
        return session
    }

    private func receiveInvitation(
        _ call: String, offer: SessionOffer, from sender: ParticipantID, client: any VoiceChatClient,
        events: SessionEvents, keys: SessionKeyPair
    ) throws(SignallingError) {
        // Only the service hears of invitations: one a match's channel carried could never be answered.
        guard case .call(let events) = events else {
            throw .wrongState(call: call, state: "carried by a match's signalling", message: "invite")
        }
        guard sessions[.call(call)] == nil else {
            throw .wrongState(call: call, state: "known", message: "invite")
        }
        guard sender != participant else { throw .notAParticipant(sender) }
        let busy = callSession(with: sender) != nil
        let peer = RemotePeer(participant: sender)
        peer.publicKey = offer.publicKey
        let session = CallSession(
            id: call, sender: mediaID, with: peer, phase: .invited, client: client, events: events, keys: keys)
        if busy {
            // Already talking with (or calling) them: the new invitation is refused, the call goes on.
            sendSignalling(.end(call: call, reason: .denied), to: sender, in: session)
            throw .wrongState(call: call, state: "already in a call with \(sender)", message: "invite")
        }
        session.pendingOffer = offer
        sessions[session.reference] = session
        emit(.invitation(call: call, from: sender), in: session)
    }

    private func receiveHello(
        _ offer: SessionOffer, channels: [ChannelAnnouncement], from sender: ParticipantID, in session: MatchSession,
        agreed: PairwiseKeyAgreement?, now: MediaTime
    ) throws(SignallingError) {
        guard let known = session.peers[sender] else { throw .notAParticipant(sender) }
        let isNewKey = known.publicKey != offer.publicKey
        if isNewKey {
            if known.publicKey != nil {
                // The player rejoined with a new session key: forget what it had.
                forgetMedia(of: known, in: session)
            }
            try agreePairwiseKey(with: sender, publicKey: offer.publicKey, in: session, agreed: agreed)
            session.peers[sender]?.isGone = false
            session.peers[sender]?.paths = makePaths(for: offer, in: session, now: now)
        }
        session.peers[sender]?.startedChannels = Set(channels.filter(\.isStarted).map(\.number))
        if isNewKey, let peer = session.peers[sender] {
            // Answer with our own hello so a player who (re)joined after us learns our key too,
            // then our keys, which it can open once it has the hello.
            sendSignalling(helloMessage(for: session), to: sender, in: session)
            sendSignalling(.keys(session.reference, session.senderKeys.wrapped(for: peer)), to: sender, in: session)
        }
        updatePlayerStates(session)
    }

    /// What this side offers the others: with a path kind forced, only that kind, so that the
    /// others settle on it at once rather than after finding the rest unanswered.
    func offer(for session: Session) -> SessionOffer {
        let forced = configuration.forcedPath
        let offersDirect = session.relay?.isPrimary != true && (forced == nil || forced == .direct)
        return SessionOffer(
            publicKey: session.publicKey,
            candidates: offersDirect ? network?.localCandidates ?? [] : [],
            offersRealTime: session.client.offersRealTimeData && (forced == nil || forced == .appCarried))
    }

    func helloMessage(for session: MatchSession) -> SignallingMessage {
        .hello(
            match: session.identifier, offer: offer(for: session),
            channels: session.channels.values.sorted { $0.number < $1.number }.map {
                ChannelAnnouncement(number: $0.number, name: $0.name, isStarted: $0.isStarted)
            })
    }
}
