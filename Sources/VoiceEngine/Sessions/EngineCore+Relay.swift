import VoiceCore
import VoiceTransport
import VoiceWire

extension EngineCore {
    /// A relay client of `match` joined, lost the relay, or was refused or removed.
    func relayEvent(_ event: RelayClientEvent, on kind: RealTimePathKind, match: String, now: MediaTime) {
        guard let session = matchSession(match), session.relay != nil else { return }
        switch event {
        case .joined:
            setRelay(kind, joined: true, in: session, now: now)
        case .lost:
            setRelay(kind, joined: false, in: session, now: now)
        case .refused(let reason):
            // Too many channels or mutes leaves the membership as it was.
            if reason != .tooManyChannels && reason != .tooManyMutes {
                setRelay(kind, joined: false, in: session, now: now)
            }
            emit(.relayFailed(path: kind, .refused(reason)), in: session)
        case .kicked(let reason):
            setRelay(kind, joined: false, in: session, now: now)
            emit(.relayFailed(path: kind, .kicked(reason)), in: session)
        case .serverMute(let muted):
            guard session.isServerMuted != muted else { return }
            session.isServerMuted = muted
            emit(.serverMuted(muted), in: session)
        case .moved(let number):
            followMove(to: number, in: session, match: match)
        case .position(let mediaID, let position):
            placeFromRelay(mediaID: mediaID, at: position, in: session)
        }
    }

    /// The game server made `number` this participant's only voice channel (0: none). The engine
    /// takes it for its own view: only that channel stays started and it gets the microphone, so
    /// that peers on direct paths hear the same as through the relay, and the interest mirrored to
    /// the relay later does not undo the move. A channel this participant never opened cannot be
    /// started (its name is unknown here): every channel stops and the event names none.
    private func followMove(to number: ChannelNumber, in session: MatchSession, match: String) {
        let known = session.channels[number] != nil
        for (other, channel) in session.channels where other != number && channel.isStarted {
            try? setChannel(other, started: false, match: match)
        }
        if known {
            try? setChannel(number, started: true, match: match)
            try? setChannel(number, active: true, match: match)
        } else if let active = session.activeChannel {
            try? setChannel(active, active: false, match: match)
        }
        emit(.moved(channel: session.channels[number]?.name), in: session)
    }

    func relayFailed(_ failure: RelayFailure, on kind: RealTimePathKind, match: String) {
        guard let session = matchSession(match), session.relay != nil else { return }
        emit(.relayFailed(path: kind, failure), in: session)
    }

    /// Offers (or withdraws) a relay route to every peer of `session`.
    private func setRelay(_ kind: RealTimePathKind, joined: Bool, in session: MatchSession, now: MediaTime) {
        guard var relay = session.relay, relay.joined.contains(kind) != joined else { return }
        if joined { relay.joined.insert(kind) } else { relay.joined.remove(kind) }
        session.relay = relay
        let appCarried = appCarriedAllowed(in: session)
        for name in Array(session.peers.keys) where session.peers[name]?.paths != nil {
            session.peers[name]?.paths?.setRelayAvailable(kind, joined, now: now)
            if relay.isPrimary { session.peers[name]?.paths?.setAppCarriedAvailable(appCarried, now: now) }
        }
    }

    /// Whether the app's own channel may carry real-time data in `session`: with the relay as the
    /// primary path, only while no relay transport is joined, so that it is a fallback and not
    /// preferred over the relay.
    func appCarriedAllowed(in session: Session) -> Bool {
        guard session.client.offersRealTimeData else { return false }
        guard let relay = session.relay, relay.isPrimary else { return true }
        return relay.joined.isEmpty
    }

    /// Queues an envelope for the relay of `session`, through the transport of `kind`, and counts
    /// it as sent (even when the relay is gone, as every route's sends are counted).
    func sendThroughRelay(_ bytes: UnsafeRawBufferPointer, via kind: RealTimePathKind, in session: Session) {
        datagramsSent.count(kind)
        guard let link = session.relay?.link else { return }
        queue(bytes, to: .relay(kind, link: link))
    }

    /// Tells the relay what this participant hears: its started channels, the players it muted
    /// in every one of them (a player muted in some channels only must still reach the others),
    /// and the range of each positional one.
    /// The link compares with what each of its clients already told the relay, so an unchanged
    /// interest costs no message.
    func mirrorToRelay(_ session: MatchSession) {
        guard let relay = session.relay else { return }
        let started = session.channels.values.filter(\.isStarted)
        let channels = Set(started.map(\.number))
        var muted: Set<MediaID> = []
        if let first = started.first {
            let mutedEverywhere = started.dropFirst().reduce(first.mutedPlayers) { $0.intersection($1.mutedPlayers) }
            muted = mutedEverywhere
        }
        var ranges: [ChannelNumber: Float] = [:]
        var names: [ChannelNumber: String] = [:]
        for channel in started {
            ranges[channel.number] = channel.proximity?.range
            names[channel.number] = channel.name
        }
        outbox.append(
            .relayInterest(
                channels: channels, muted: muted, hearingRanges: ranges, channelNames: names, link: relay.link))
    }

    /// The relay route every listener is on, when they all share one: then a single envelope to
    /// everyone in the channel reaches them all, the relay making the copies.
    func sharedRelayRoute(of listeners: [RemotePeer]) -> RealTimePathKind? {
        var shared: RealTimePathKind?
        var count = 0
        for listener in listeners {
            guard let kind = listener.activeRoute?.kind, kind == .relayUDP || kind == .relayTCP,
                shared == nil || shared == kind
            else { return nil }
            shared = kind
            count += 1
        }
        return count > 1 ? shared : nil
    }
}

extension VoiceEngine {
    /// A relay transport of `match` joined, lost the relay, or was refused or removed: what a
    /// `RelayConnection` reports.
    public func relayEvent(_ event: RelayClientEvent, on kind: RealTimePathKind, match: String) {
        let now = self.now
        withCore { core in core.relayEvent(event, on: kind, match: match, now: now) }
    }

    /// A relay transport of `match` could not connect at all: what a `RelayConnection` reports.
    public func relayFailed(_ failure: RelayFailure, on kind: RealTimePathKind, match: String) {
        withCore { core in core.relayFailed(failure, on: kind, match: match) }
    }
}
