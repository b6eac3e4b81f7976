import VoiceCore
import VoiceTransport
import VoiceWire

extension EngineCore {
    /// A path selector for a peer whose offer arrived, restricted to what both ends can use.
    func makePaths(for offer: SessionOffer, in session: Session, now: MediaTime) -> PathSelector {
        let isRelayPrimary = session.relay?.isPrimary == true
        var pathConfiguration = configuration.paths
        // Without direct candidates there is nothing to wait for before using the relay.
        if isRelayPrimary { pathConfiguration.directCheckTimeout = 0 }
        var paths = PathSelector(
            configuration: pathConfiguration, localCandidates: isRelayPrimary ? [] : network?.localCandidates ?? [],
            appCarriedAvailable: appCarriedAllowed(in: session) && offer.offersRealTime, now: now)
        paths.setPreferred(configuration.forcedPath)
        if !isRelayPrimary { paths.addRemoteCandidates(offer.candidates, now: now) }
        for kind in session.relay?.joined.sorted() ?? [] { paths.setRelayAvailable(kind, true, now: now) }
        return paths
    }

    func tickPaths(_ session: Session, now: MediaTime) {
        // What a tick's actions do may add or remove peers, so the names go into a buffer kept
        // from tick to tick rather than the dictionary being iterated.
        peerNames.removeAll(keepingCapacity: true)
        peerNames.append(contentsOf: session.peers.keys)
        for name in peerNames {
            guard let peer = session.peers[name], !peer.isGone else { continue }
            tickActions.removeAll(keepingCapacity: true)
            peer.paths?.tick(now: now, into: &tickActions)
            perform(tickActions, peer: name, in: session, now: now)
        }
    }

    func perform(_ actions: [PathAction], peer name: ParticipantID, in session: Session, now: MediaTime) {
        for action in actions {
            guard let peer = session.peers[name] else { return }
            switch action {
            case .sendProbe(let probe, let route):
                sendProbe(probe, content: .probe, to: peer, route: route, in: session)
            case .sendProbeReply(let probe, let route):
                sendProbe(probe, content: .probeReply, to: peer, route: route, in: session)
            case .routeChanged(let from, let to):
                routeChanged(from: from, to: to, peer: name, in: session, now: now)
            case .peerGone:
                peerGone(name, in: session)
            }
        }
    }

    private func sendProbe(
        _ probe: ConnectivityProbe, content: SealedContent, to peer: RemotePeer, route: PathRoute, in session: Session
    ) {
        // `plaintext` is free: a probe that asks for a reply was parsed out of it before this.
        guard (try? probe.write(into: plaintext)) != nil else { return }
        let sealed = session.senderKeys.seal(
            content, channel: .session, destination: peer.mediaID,
            plaintext: UnsafeRawBufferPointer(rebasing: plaintext[0..<ConnectivityProbe.encodedBytes]),
            into: envelope)
        guard let sealed else { return }
        send(sealed, to: peer, route: route, session: session)
    }

    private func routeChanged(
        from: PathRoute?, to: PathRoute?, peer name: ParticipantID, in session: Session, now: MediaTime
    ) {
        guard let peer = session.peers[name] else { return }
        if to != nil { peer.wasConnected = true }
        // A listener that just became reachable learns the path from a run of full packets.
        if from == nil, to != nil { session.outgoing.pipeline?.warmUpPath() }
        session.routeChanged(from: from, to: to, peer: name, core: self)
    }

    func peerGone(_ name: ParticipantID, in session: Session) {
        guard let peer = session.peers[name], !peer.isGone else { return }
        session.peerGone(name, core: self)
    }

    /// Marks a match's player gone: nothing of theirs is played or opened any more, and listeners
    /// of the connection hear that it ended. Player states and keys are the caller's to update
    /// (once, however many players went: see `SenderKeys.needsRekey`). Returns false when the player
    /// was not there.
    @discardableResult
    func markGone(_ name: ParticipantID, in session: MatchSession) -> Bool {
        guard let peer = session.peers[name], !peer.isGone else { return false }
        peer.isGone = true
        peer.startedChannels = []
        forgetMedia(of: peer, in: session)
        if peer.wasConnected { emit(.playerConnection(player: name, connected: false), in: session) }
        return true
    }

    /// Drops a peer's streams and keys: what it sends from now on does not open.
    func forgetMedia(of peer: RemotePeer, in session: Session) {
        removeStreams(in: session) { $0.sender == peer.mediaID }
        session.incoming.opener.remove(sender: peer.mediaID)
    }
}
