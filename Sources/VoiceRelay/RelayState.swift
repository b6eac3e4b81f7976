import Logging
import NIOCore
import VoiceCore
import VoiceRelayShared
import VoiceWire

/// Membership and forwarding: the whole mutable state of a relay, as a state machine.
///
/// It does no I/O. Each call takes what arrived (a datagram, a frame, a closed or congested
/// connection, the clock) and appends what to send or close to `actions`, which its caller
/// (`RelayIO`) carries out and empties; so fan-out, joins and housekeeping are testable with no
/// socket and no clock of their own.
///
/// Thread contract: lives on the relay's one event loop; every UDP and TCP channel of the relay is
/// registered on that loop, and admin calls hop onto it, so nothing here is locked.
final class RelayState {
    let configuration: RelayConfiguration
    let logger: Logger
    /// What to send and close, in order; the caller carries them out and empties it and
    /// `forwardDestinations`, keeping their capacity so the forwarding path does not allocate.
    var actions: [RelayAction] = []
    /// Where the copies of `RelayAction.forward` go.
    var forwardDestinations: [RelayDatagramDestination] = []
    /// Who is in which match, by which transport.
    let roster = RelayRoster()
    var matches: [String: RelayMatch] { roster.matches }
    var participantCount: Int { roster.participantCount }
    /// TCP connections whose outbound queue is past its high water mark.
    private var congestedConnections: Set<RelayConnectionID> = []
    /// Who may join, how often, and what each connection is until it does.
    var gate: RelayGate
    /// Set by `shutDown`: from then on nothing is taken, so that a client's rejoin arriving while
    /// the sockets close cannot find an empty match and report its other players gone.
    private(set) var isShutDown = false
    var counters = RelayCounters()
    var joins = 0
    var refusals = [Int](repeating: 0, count: RelayRefusal.allCases.count + 1)
    /// Who is told of a move, kept between moves so that telling them allocates no list.
    var positionRecipients: [RelaySource] = []
    /// Signalling attachments (see `RelayState+Signalling`): by match, then participant.
    var signallingMatches: [String: [String: RelaySignallingMember]] = [:]
    /// The same attachments by their connection.
    var signallingConnections: [RelayConnectionID: RelaySignallingMember] = [:]
    var signallingJoins = 0
    /// Where matches live when the relay is one of a cluster (see `RelayState+Placement`).
    var placement = RelayPlacementLedger()
    /// The matches it shares with other relays of the cluster (see `RelayState+Span`).
    var spans: RelaySpans

    init(configuration: RelayConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        spans = RelaySpans(configuration: configuration)
        gate = RelayGate(configuration: configuration, logger: logger)
        actions.reserveCapacity(64)
        forwardDestinations.reserveCapacity(256)
    }

    // MARK: Receiving

    /// Handles one datagram or TCP frame.
    func received(_ buffer: ByteBuffer, from source: RelaySource, now: UInt64) {
        gate.latestNow = now
        guard !isShutDown else {
            if case .tcp(let connection) = source { actions.append(.close(connection)) }
            return
        }
        let bytes = buffer.readableBytes
        counters.packetsReceived &+= 1
        counters.bytesReceived &+= bytes
        guard bytes >= 2, let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            first >> 4 == wireVersion
        else { return drop(.malformed, member: nil) }
        switch first & 0x0F {
        case WireMessageType.sealed.rawValue: forward(buffer, from: source, now: now)
        case WireMessageType.relay.rawValue: control(buffer, from: source, now: now)
        case WireMessageType.peer.rawValue: peerMessage(buffer, from: source, now: now)
        default: drop(.malformed, member: nil)
        }
    }

    @inline(__always)
    func member(for source: RelaySource) -> RelayMember? { roster.member(for: source) }

    @inline(__always)
    func drop(_ reason: RelayDropReason, member: RelayMember?) {
        counters.drops[reason.rawValue] &+= 1
        member?.counters.drops[reason.rawValue] &+= 1
    }

    // MARK: Forwarding

    private func forward(_ buffer: ByteBuffer, from source: RelaySource, now: UInt64) {
        guard let sender = self.member(for: source) else { return drop(.notJoined, member: nil) }
        let bytes = buffer.readableBytes
        sender.counters.packetsReceived &+= 1
        sender.counters.bytesReceived &+= bytes
        let isTCP: Bool
        switch source {
        case .udp: sender.lastHeardUDP = now; isTCP = false
        case .tcp: sender.lastHeardTCP = now; isTCP = true
        }
        guard bytes <= configuration.limits.maximumDatagramBytes else { return drop(.tooLarge, member: sender) }
        let parsed = buffer.withUnsafeReadableBytes { raw -> SealedEnvelopeHeader? in
            do { return try SealedEnvelopeHeader(parsing: raw) } catch { return nil }
        }
        guard let header = parsed else { return drop(.malformed, member: sender) }
        guard header.sender == sender.mediaID else { return drop(.spoofedSender, member: sender) }
        guard sender.packetBucket.take(1, now: now), sender.byteBucket.take(Double(bytes), now: now) else {
            return drop(.rateLimited, member: sender)
        }
        if header.content == .voice {
            guard !sender.serverMuted else { return drop(.serverMuted, member: sender) }
            sender.lastVoice = now
        }
        fanOut(buffer, header: header, from: sender, reliable: isTCP)
    }

    /// Sends `sender`'s envelope to those of its match who want it: its members here and, when
    /// the sender is on this relay, once to each other relay of the cluster where a player does.
    func fanOut(_ buffer: ByteBuffer, header: SealedEnvelopeHeader, from sender: RelayMember, reliable: Bool) {
        let isVoice = header.content == .voice
        let firstCopy = forwardDestinations.count
        defer {
            if forwardDestinations.count > firstCopy {
                actions.append(.forward(buffer, copies: firstCopy..<forwardDestinations.count))
            }
        }
        let match = sender.match
        if header.destination == SealedEnvelopeHeader.everyone {
            for recipient in match.members where recipient !== sender {
                guard recipient.listens(to: header.channel) else { continue }
                if isVoice, !wants(recipient, voiceFrom: sender, on: header.channel) { continue }
                deliver(buffer, to: recipient, reliable: reliable, sender: sender)
            }
            if sender.peer == nil, !match.remote.isEmpty {
                forwardToPeers(buffer, header: header, from: sender, isVoice: isVoice)
            }
        } else if let recipient = match.member(mediaID: header.destination), recipient !== sender {
            if isVoice, !wants(recipient, voiceFrom: sender, on: header.channel) { return }
            deliver(buffer, to: recipient, reliable: reliable, sender: sender)
        } else if sender.peer == nil, let recipient = match.remoteMember(mediaID: header.destination),
            let peer = recipient.peer
        {
            if isVoice, !wantsRemotely(recipient, voiceFrom: sender, on: header.channel) { return }
            sendVoice(Self.bytes(of: buffer), of: match, to: peer)
        } else {
            drop(.unknownDestination, member: sender)
        }
    }

    /// Whether `recipient` wants `sender`'s voice on `channel`: it has not muted the sender, and
    /// on a channel it hears positionally, the sender is in its range.
    @inline(__always)
    func wants(_ recipient: RelayMember, voiceFrom sender: RelayMember, on channel: ChannelNumber) -> Bool {
        if recipient.muted.contains(sender.mediaID) { return false }
        guard !recipient.hearsPositionally || recipient.hears(sender.mediaID, on: channel) else {
            counters.packetsOutOfRange &+= 1
            sender.counters.packetsOutOfRange &+= 1
            return false
        }
        return true
    }

    /// Counts a forwarded UDP copy its I/O could not queue: the socket's outbound queue was full.
    /// Late voice is useless, and an unbounded queue would turn overload into seconds of delay for
    /// every listener, so the relay drops instead of queueing.
    func datagramCongested(to address: SocketAddress) {
        drop(.recipientCongested, member: roster.member(for: .udp(address)))
    }

    /// Notes whether a TCP connection's outbound queue is past its high water mark.
    func connectionWritabilityChanged(_ connection: RelayConnectionID, isWritable: Bool) {
        if isWritable {
            congestedConnections.remove(connection)
        } else {
            congestedConnections.insert(connection)
        }
    }

    @inline(__always)
    func isCongested(_ connection: RelayConnectionID) -> Bool {
        !congestedConnections.isEmpty && congestedConnections.contains(connection)
    }

    /// Sends over UDP where the recipient has it, except that what arrived reliably (TCP) goes over
    /// the recipient's TCP connection when it has one.
    @inline(__always)
    func deliver(_ buffer: ByteBuffer, to recipient: RelayMember, reliable: Bool, sender: RelayMember) {
        if let address = recipient.udpAddress, !(reliable && recipient.tcpConnection != nil) {
            if let destination = recipient.udpDestination {
                forwardDestinations.append(destination)
            } else {
                actions.append(.datagram(buffer, to: address))
            }
        } else if let tcp = recipient.tcpConnection {
            guard !isCongested(tcp) else { return drop(.recipientCongested, member: recipient) }
            actions.append(.frame(buffer, to: tcp))
        } else {
            return
        }
        counters.packetsForwarded &+= 1
        counters.bytesForwarded &+= buffer.readableBytes
        sender.counters.packetsForwarded &+= 1
        sender.counters.bytesForwarded &+= buffer.readableBytes
    }

    // MARK: Control messages

    private func control(_ buffer: ByteBuffer, from source: RelaySource, now: UInt64) {
        let parsed = buffer.withUnsafeReadableBytes { raw -> Result<RelayMessage, RelayMessageError> in
            Result { () throws(RelayMessageError) in try RelayMessage(parsing: raw) }
        }
        let message: RelayMessage
        switch parsed {
        case .success(let parsedMessage): message = parsedMessage
        case .failure(.payloadTooLarge):
            return drop(.tooLarge, member: self.member(for: source))
        case .failure:
            return drop(.malformed, member: self.member(for: source))
        }
        if case .join(let join) = message {
            guard signallingMember(for: source) == nil else {
                return refuse(.wrongConnection, to: source, participant: join.participant)
            }
            guard admitJoinAttempt(from: source, now: now) else { return }
            return self.join(join, from: source, now: now)
        }
        if case .signalJoin(let token, let participant) = message {
            guard admitJoinAttempt(from: source, now: now) else { return }
            return signallingJoin(token: token, participant: participant, from: source, now: now)
        }
        if let signalling = signallingMember(for: source) {
            return signallingControl(message, from: signalling, now: now)
        }
        guard let member = self.member(for: source) else {
            switch message {
            case .leave: return
            default:
                drop(.notJoined, member: nil)
                return send(.refused(.notJoined), to: source)
            }
        }
        switch source {
        case .udp: member.lastHeardUDP = now
        case .tcp: member.lastHeardTCP = now
        }
        switch message {
        case .keepalive(let nonce): send(.pong(nonce: nonce), to: source)
        case .startChannel(let channel):
            if !member.startChannel(channel) { send(.refused(.tooManyChannels), to: source) }
            describeToPeers(member)
        case .stopChannel(let channel):
            member.channels.removeAll { $0 == channel }
            describeToPeers(member)
        case .channelName(let channel, let name): member.match.nameChannel(channel, name)
        case .mute(let id):
            if !member.mute(id) { send(.refused(.tooManyMutes), to: source) }
            describeToPeers(member)
        case .unmute(let id):
            member.muted.removeAll { $0 == id }
            describeToPeers(member)
        case .position(let mediaID, let position): reportedPosition(position, of: mediaID, by: member, now: now)
        case .hearingRange(let channel, let range): setHearingRange(range, on: channel, of: member, source: source)
        case .leave: remove(member, because: "left")
        case .moving: arrived(member)
        case .join, .joined, .refused, .pong, .kicked, .moved, .serverMute, .signalJoin, .signalJoined,
            .memberJoined, .memberLeft, .sendSignal, .signal, .redirect:
            drop(.malformed, member: member)
        }
    }

    func refuse(_ reason: RelayRefusal, to source: RelaySource, participant: String? = nil) {
        if gate.isNewRefusal(of: participant, reason: reason) {
            logger.notice(
                "refused join",
                metadata: [
                    "reason": "\(reason)", "from": "\(describe(source))", "participant": "\(participant ?? "?")",
                ])
            refusals[Int(reason.rawValue)] &+= 1
        }
        drop(.refusedJoin, member: nil)
        send(.refused(reason), to: source)
    }

    func join(_ join: RelayJoin, from source: RelaySource, now: UInt64) {
        let token: RelayToken
        switch gate.admittedToken(join.token, participant: join.participant) {
        case .admitted(let admitted): token = admitted
        case .refused(let reason): return refuse(reason, to: source, participant: join.participant)
        }
        guard !awaitsPlacement(of: token.match, .media(join), from: source) else { return }
        let mediaID = ParticipantID(join.participant).mediaID
        // A source that joined as someone else gives that membership up first.
        if let previous = self.member(for: source),
            previous.participant != join.participant || previous.match.id != token.match
        {
            detach(source, from: previous, because: "joined again as \(join.participant) in \(token.match)")
        }
        let joining: RelayMember
        let isNew: Bool
        switch roster.admit(
            join.participant, mediaID: mediaID, match: token.match, limits: configuration.limits, now: now)
        {
        case .member(let member, let new): (joining, isNew) = (member, new)
        case .refused(let reason):
            if reason == .matchFull || reason == .relayFull, spillsOver(token.match, .media(join), from: source) {
                return
            }
            return refuse(reason, to: source, participant: join.participant)
        }
        let match = joining.match
        joining.channels = Array(Set(join.channels.filter { $0 != 0 })).sorted()
        for (channel, name) in join.channelNames.sorted(by: { $0.key < $1.key }) { match.nameChannel(channel, name) }
        joining.muted = Array(Set(join.muted))
        attach(source, to: joining, now: now)
        // A player joins once: its second transport, and the joins its client repeats until it
        // hears back, are the same membership.
        let metadata: Logger.Metadata = [
            "match": "\(token.match)", "participant": "\(join.participant)", "from": "\(describe(source))",
            "channels": "\(joining.channels.map { match.name(of: $0) })",
        ]
        if isNew {
            joins &+= 1
            logger.info("joined", metadata: metadata)
            // The first player of a part of a spanning match: the other parts' players are wanted.
            if match.members.count == 1 { tellPeers(.hello, of: match.id) }
        } else {
            logger.debug("joined again", metadata: metadata)
        }
        send(.joined(mediaID: mediaID), to: source)
        describeToPeers(joining)
        // Every join hears the game server's mute as it stands: a client joining a muted
        // membership (a reconnect, a second transport, a restarted app) must know it, or its
        // engine would talk on direct paths; one that was muted before this relay forgot it (a
        // restart) must hear that it no longer is.
        send(.serverMute(joining.serverMuted), to: source)
    }

    private func attach(_ source: RelaySource, to member: RelayMember, now: UInt64) {
        if let replaced = roster.attach(source, to: member, now: now) {
            send(.kicked(.replaced), to: replaced)
            if case .tcp(let old) = replaced { actions.append(.close(old)) }
        }
        if case .tcp(let connection) = source { gate.forgetUnjoined(connection) }
    }

    /// Removes one transport of a member, and the member once it has none (`reason` says why).
    private func detach(_ source: RelaySource, from member: RelayMember, because reason: String) {
        roster.detach(source, from: member)
        if !member.hasTransport { remove(member, because: reason) }
    }

    /// Takes the member out of its match, logging why.
    func remove(_ member: RelayMember, because reason: String) {
        logger.info(
            "left",
            metadata: ["match": "\(member.match.id)", "participant": "\(member.participant)", "reason": "\(reason)"])
        tellPeersGone(member)
        roster.remove(member)
        forgetHearing(of: member)
        if roster.matches[member.match.id] == nil {
            // Its players on other relays refer to the match: emptying it breaks the cycle.
            member.match.remote = []
        } else {
            partMayHaveRoom(member.match.id)
        }
        releaseIfEmpty(member.match.id)
    }

    /// Notes where a TCP connection that just opened comes from (for the log) and when (it must
    /// join within the hello deadline), or closes it at once when its address holds as many
    /// connections that have not joined as it may.
    func connectionOpened(_ connection: RelayConnectionID, from peer: SocketAddress?, now: UInt64) {
        guard !isShutDown else {
            actions.append(.close(connection))
            return
        }
        guard gate.connectionOpened(connection, from: peer, now: now) else {
            drop(.addressConnectionLimit, member: nil)
            actions.append(.close(connection))
            return
        }
    }

    /// Whether a join from `source` is within its address's rate; one that is not is dropped
    /// unanswered (an answer would let spoofed UDP sources aim the relay at someone).
    private func admitJoinAttempt(from source: RelaySource, now: UInt64) -> Bool {
        guard gate.admitAttempt(from: source, now: now) else {
            drop(.joinRateLimited, member: nil)
            return false
        }
        return true
    }

    /// Whether `connection` may send a frame of `length` bytes, told as its header arrives: one
    /// that has not joined has no reason to send more than a join, and is closed instead of
    /// holding up to 64 KB until the hello deadline.
    func tcpFrameAnnounced(length: Int, on connection: RelayConnectionID) -> Bool {
        guard gate.isUnjoined(connection), length > RelayMessage.maximumJoinBytes else { return true }
        drop(.unjoinedFrameTooLarge, member: nil)
        gate.forgetUnjoined(connection)
        actions.append(.close(connection))
        return false
    }

    /// A source as log lines name it: "udp 192.0.2.7:5000", "tcp 192.0.2.7:5001".
    func describe(_ source: RelaySource) -> String { gate.describe(source) }

    /// Forgets a TCP connection that closed, and its member's membership if it was its last transport.
    func tcpClosed(_ connection: RelayConnectionID) {
        congestedConnections.remove(connection)
        gate.connectionClosed(connection)
        if let signalling = signallingConnections[connection] {
            return removeSignalling(signalling)
        }
        guard let member = roster.member(for: .tcp(connection)) else { return }
        detach(.tcp(connection), from: member, because: "its connection closed")
    }

    // MARK: Sending control messages

    func send(_ message: RelayMessage, to source: RelaySource) { send(message, to: CollectionOfOne(source)) }

    /// Serializes `message` once and sends the same buffer to every source (the sends share it).
    func send(_ message: RelayMessage, to sources: some Collection<RelaySource>) {
        guard !sources.isEmpty, let bytes = try? message.serialized() else { return }
        let buffer = ByteBuffer(bytes: bytes)
        for source in sources {
            switch source {
            case .udp(let address): actions.append(.datagram(buffer, to: address))
            case .tcp(let connection): actions.append(.frame(buffer, to: connection))
            }
        }
    }

    /// Sends to every transport the member has.
    func notify(_ member: RelayMember, _ message: RelayMessage) {
        var sources: [RelaySource] = []
        if let address = member.udpAddress { sources.append(.udp(address)) }
        if let connection = member.tcpConnection { sources.append(.tcp(connection)) }
        send(message, to: sources)
    }

    // MARK: Housekeeping

    /// Drops transports that have been silent longer than the liveness timeout.
    func sweep(now: UInt64) {
        gate.latestNow = now
        gate.forgetOldRefusals(now: now)
        let timeout = nanoseconds(configuration.livenessTimeout)
        for (source, member) in roster.silentTransports(now: now, timeout: timeout) {
            detach(source, from: member, because: "nothing heard for \(configuration.livenessTimeout)")
            if case .tcp(let connection) = source { actions.append(.close(connection)) }
        }
        sweepSignalling(now: now, timeout: timeout)
        sweepSpans(now: now)
        sweepDrain()
        closeConnectionsPastTheHelloDeadline(now: now)
        for (host, refused) in gate.sweepAddressLimits(now: now) {
            logger.notice(
                "refused connections or joins over the per-address limits",
                metadata: [
                    "address": "\(host)", "connections": "\(refused.connections)", "joins": "\(refused.attempts)",
                ])
        }
    }

    private func closeConnectionsPastTheHelloDeadline(now: UInt64) {
        let deadline = nanoseconds(configuration.helloDeadline)
        for (connection, opened) in gate.unjoinedConnections {
            if roster.member(for: .tcp(connection)) != nil || signallingConnections[connection] != nil {
                gate.forgetUnjoined(connection)
            } else if now &- opened > deadline {
                logger.notice(
                    "closed a connection that did not join",
                    metadata: [
                        "from": "\(describe(.tcp(connection)))",
                        "reason": "no join within \(configuration.helloDeadline)",
                    ])
                drop(.helloTimeout, member: nil)
                gate.forgetUnjoined(connection)
                actions.append(.close(connection))
            }
        }
    }

    /// Members that sent voice within the last second.
    func currentSenders(now: UInt64) -> Int { roster.currentSenders(now: now) }

    func member(match: String, participant: String) -> RelayMember? {
        roster.member(match: match, participant: participant)
    }

    /// Tells every member the relay is going away, then forgets them all.
    func shutDown() {
        isShutDown = true
        for match in roster.removeAll() {
            for member in match.members {
                notify(member, .kicked(.shutdown))
                if let connection = member.tcpConnection { actions.append(.close(connection)) }
            }
            // Members refer to their match; emptying it breaks the cycle.
            match.members = []
            match.remote = []
        }
        congestedConnections = []
        gate.forgetConnections()
        shutDownSignalling()
    }
}
