import Logging
import NIOCore
import VoiceRelayClient
import VoiceWire

/// Whether a join's token admits its participant.
enum Admission {
    case admitted(RelayToken)
    case refused(RelayRefusal)
}

/// Where a datagram came from.
enum RelaySource {
    case udp(SocketAddress)
    case tcp(Channel)
}

/// Membership and forwarding: the whole mutable state of a relay.
///
/// Thread contract: lives on the relay's one event loop; every UDP and TCP channel of the relay is
/// registered on that loop, and admin calls hop onto it, so nothing here is locked.
final class RelayState {
    let configuration: RelayConfiguration
    let logger: Logger
    /// The UDP handler's context: writing through it skips the pipeline walk and the generic
    /// `Channel.write` (with its dynamic casts) that each forwarded copy would otherwise pay.
    var udpContext: ChannelHandlerContext?
    /// Sends forwarded UDP copies a read batch at a time; nil sends them through `udpContext`.
    var udpBatch: RelayDatagramBatchSender? {
        didSet {
            udpBatch?.overflow = { [unowned self] payload, address in
                writeThroughPipeline(payload, to: address, member: udpMembers[address])
            }
        }
    }
    private(set) var matches: [String: RelayMatch] = [:]
    private var udpMembers: [SocketAddress: RelayMember] = [:]
    private var tcpMembers: [ObjectIdentifier: RelayMember] = [:]
    private(set) var participantCount = 0
    var counters = RelayCounters()
    var joins = 0
    var refusals = [Int](repeating: 0, count: RelayRefusal.allCases.count + 1)
    /// Signalling attachments (see `RelayState+Signalling`): by match, then participant.
    var signallingMatches: [String: [String: RelaySignallingMember]] = [:]
    /// The same attachments by their connection.
    var signallingConnections: [ObjectIdentifier: RelaySignallingMember] = [:]
    var signallingJoins = 0
    private var udpFlushPending = false

    init(configuration: RelayConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    // MARK: Receiving

    /// Handles one datagram or TCP frame. UDP writes are flushed by `flushUDP` after the read batch.
    func received(_ buffer: ByteBuffer, from source: RelaySource, now: UInt64) {
        let bytes = buffer.readableBytes
        counters.packetsReceived &+= 1
        counters.bytesReceived &+= bytes
        guard bytes >= 2, let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            first >> 4 == wireVersion
        else { return drop(.malformed, member: nil) }
        switch first & 0x0F {
        case WireMessageType.sealed.rawValue: forward(buffer, from: source, now: now)
        case WireMessageType.relay.rawValue: control(buffer, from: source, now: now)
        default: drop(.malformed, member: nil)
        }
    }

    func flushUDP() {
        guard udpFlushPending else { return }
        udpFlushPending = false
        udpBatch?.flush()
        udpContext?.flush()
    }

    @inline(__always)
    func member(for source: RelaySource) -> RelayMember? {
        switch source {
        case .udp(let address): udpMembers[address]
        case .tcp(let channel): tcpMembers[ObjectIdentifier(channel)]
        }
    }

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
        let isVoice = header.content == .voice
        if isVoice {
            guard !sender.serverMuted else { return drop(.serverMuted, member: sender) }
            sender.lastVoice = now
        }
        // Copied into the batch sender once, on its first UDP recipient, and shared by all of them.
        var staged: RelayDatagramBatchSender.StagedPayload?
        if header.destination == SealedEnvelopeHeader.everyone {
            for recipient in sender.match.members where recipient !== sender {
                guard recipient.listens(to: header.channel) else { continue }
                if isVoice, recipient.muted.contains(sender.mediaID) { continue }
                deliver(buffer, to: recipient, reliable: isTCP, sender: sender, staged: &staged)
            }
        } else {
            guard let recipient = sender.match.member(mediaID: header.destination), recipient !== sender else {
                return drop(.unknownDestination, member: sender)
            }
            if isVoice, recipient.muted.contains(sender.mediaID) { return }
            deliver(buffer, to: recipient, reliable: isTCP, sender: sender, staged: &staged)
        }
        if isTCP { flushUDP() }
    }

    /// Queues one forwarded copy on the UDP channel's own write path (no batch sender, or one
    /// whose socket was full). Past the socket's write water mark the relay drops instead of
    /// queueing: late voice is useless, and an unbounded queue would turn overload into seconds
    /// of delay for every listener.
    private func writeThroughPipeline(_ payload: ByteBuffer, to address: SocketAddress, member: RelayMember?) {
        guard let udp = udpContext, udp.channel.isWritable else { return drop(.recipientCongested, member: member) }
        udp.write(NIOAny(AddressedEnvelope(remoteAddress: address, data: payload)), promise: nil)
    }

    /// Sends over UDP where the recipient has it, except that what arrived reliably (TCP) goes over
    /// the recipient's TCP connection when it has one.
    @inline(__always)
    private func deliver(
        _ buffer: ByteBuffer, to recipient: RelayMember, reliable: Bool, sender: RelayMember,
        staged: inout RelayDatagramBatchSender.StagedPayload?
    ) {
        if let address = recipient.udpAddress, !(reliable && recipient.tcpChannel != nil), udpContext != nil {
            if let batch = udpBatch, let destination = recipient.udpDestination,
                let payload = staged ?? batch.stage(buffer)
            {
                staged = payload
                batch.append(payload, to: destination)
            } else {
                writeThroughPipeline(buffer, to: address, member: recipient)
            }
            udpFlushPending = true
        } else if let tcp = recipient.tcpChannel {
            guard tcp.isWritable else { return drop(.recipientCongested, member: recipient) }
            tcp.writeAndFlush(buffer, promise: nil)
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
            guard signallingMember(for: source) == nil else { return refuse(.wrongConnection, to: source) }
            return self.join(join, from: source, now: now)
        }
        if case .signalJoin(let token, let participant) = message {
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
            if channel != 0, !member.channels.contains(channel) {
                guard member.channels.count < RelayJoin.maximumChannels else {
                    return send(.refused(.tooManyChannels), to: source)
                }
                member.channels.append(channel)
            }
        case .stopChannel(let channel): member.channels.removeAll { $0 == channel }
        case .mute(let id):
            if !member.muted.contains(id) {
                guard member.muted.count < RelayJoin.maximumMutes else {
                    return send(.refused(.tooManyMutes), to: source)
                }
                member.muted.append(id)
            }
        case .unmute(let id): member.muted.removeAll { $0 == id }
        case .leave: remove(member)
        case .join, .joined, .refused, .pong, .kicked, .moved, .serverMute, .signalJoin, .signalJoined,
            .memberJoined, .memberLeft, .sendSignal, .signal:
            drop(.malformed, member: member)
        }
        flushUDP()
    }

    func refuse(_ reason: RelayRefusal, to source: RelaySource) {
        refusals[Int(reason.rawValue)] &+= 1
        drop(.refusedJoin, member: nil)
        send(.refused(reason), to: source)
        flushUDP()
    }

    /// The token of a join (media or signalling) if it admits `participant`, or why not.
    func admittedToken(_ text: String, participant: String) -> Admission {
        let token: RelayToken
        do {
            token = try RelayToken(parsing: text)
            try token.verify(secret: configuration.secret, now: configuration.unixTime())
        } catch {
            logger.debug("refused join", metadata: ["reason": "\(error)"])
            return .refused(RelayRefusal(error))
        }
        if let allowed = configuration.allowedMatches, !allowed.contains(token.match) {
            return .refused(.wrongMatch)
        }
        guard token.participant == participant else { return .refused(.participantMismatch) }
        return .admitted(token)
    }

    private func join(_ join: RelayJoin, from source: RelaySource, now: UInt64) {
        let token: RelayToken
        switch admittedToken(join.token, participant: join.participant) {
        case .admitted(let admitted): token = admitted
        case .refused(let reason): return refuse(reason, to: source)
        }
        let mediaID = MediaID(participant: join.participant).rawValue
        // A source that joined as someone else gives that membership up first.
        if let previous = self.member(for: source),
            previous.participant != join.participant || previous.match.id != token.match
        {
            detach(source, from: previous)
        }
        let match = matches[token.match] ?? RelayMatch(id: token.match)
        let joining: RelayMember
        if let existing = match.member(participant: join.participant) {
            joining = existing
        } else {
            guard match.member(mediaID: mediaID) == nil else { return refuse(.mediaIDCollision, to: source) }
            guard match.members.count < configuration.limits.maximumMembersPerMatch else {
                return refuse(.matchFull, to: source)
            }
            guard participantCount < configuration.limits.maximumParticipants else {
                return refuse(.relayFull, to: source)
            }
            let created = RelayMember(
                match: match, participant: join.participant, mediaID: mediaID, limits: configuration.limits, now: now)
            match.members.append(created)
            matches[match.id] = match
            participantCount += 1
            joining = created
        }
        joining.channels = Array(Set(join.channels.filter { $0 != 0 })).sorted()
        joining.muted = Array(Set(join.muted))
        attach(source, to: joining, now: now)
        joins &+= 1
        send(.joined(mediaID: mediaID), to: source)
        // Every join hears the game server's mute as it stands: a client joining a muted
        // membership (a reconnect, a second transport, a restarted app) must know it, or its
        // engine would talk on direct paths; one that was muted before this relay forgot it (a
        // restart) must hear that it no longer is.
        send(.serverMute(joining.serverMuted), to: source)
        flushUDP()
    }

    private func attach(_ source: RelaySource, to member: RelayMember, now: UInt64) {
        switch source {
        case .udp(let address):
            if let old = member.udpAddress, old != address {
                udpMembers[old] = nil
                send(.kicked(.replaced), to: .udp(old))
            }
            member.udpAddress = address
            member.lastHeardUDP = now
            udpMembers[address] = member
        case .tcp(let channel):
            if let old = member.tcpChannel, old !== channel {
                tcpMembers[ObjectIdentifier(old)] = nil
                send(.kicked(.replaced), to: .tcp(old))
                old.close(promise: nil)
            }
            member.tcpChannel = channel
            member.lastHeardTCP = now
            tcpMembers[ObjectIdentifier(channel)] = member
        }
    }

    /// Removes one transport of a member, and the member once it has none.
    private func detach(_ source: RelaySource, from member: RelayMember) {
        switch source {
        case .udp(let address):
            if member.udpAddress == address {
                member.udpAddress = nil
                udpMembers[address] = nil
            }
        case .tcp(let channel):
            if member.tcpChannel === channel {
                member.tcpChannel = nil
                tcpMembers[ObjectIdentifier(channel)] = nil
            }
        }
        if !member.hasTransport { remove(member) }
    }

    func remove(_ member: RelayMember) {
        if let address = member.udpAddress, udpMembers[address] === member { udpMembers[address] = nil }
        if let channel = member.tcpChannel, tcpMembers[ObjectIdentifier(channel)] === member {
            tcpMembers[ObjectIdentifier(channel)] = nil
        }
        member.udpAddress = nil
        member.tcpChannel = nil
        let match = member.match
        let before = match.members.count
        match.members.removeAll { $0 === member }
        if match.members.count < before { participantCount -= 1 }
        if match.members.isEmpty { matches[match.id] = nil }
    }

    func tcpClosed(_ channel: Channel) {
        if let signalling = signallingConnections[ObjectIdentifier(channel)] {
            return removeSignalling(signalling)
        }
        guard let member = tcpMembers[ObjectIdentifier(channel)] else { return }
        detach(.tcp(channel), from: member)
    }

    // MARK: Sending control messages

    func send(_ message: RelayMessage, to source: RelaySource) { send(message, to: CollectionOfOne(source)) }

    /// Serializes `message` once and writes the same buffer to every source (writes share it).
    func send(_ message: RelayMessage, to sources: some Collection<RelaySource>) {
        guard !sources.isEmpty, let bytes = try? message.serialized() else { return }
        let buffer = ByteBuffer(bytes: bytes)
        for source in sources {
            switch source {
            case .udp(let address):
                guard let udp = udpContext else { continue }
                udp.write(NIOAny(AddressedEnvelope(remoteAddress: address, data: buffer)), promise: nil)
                udpFlushPending = true
            case .tcp(let channel):
                channel.writeAndFlush(buffer, promise: nil)
            }
        }
    }

    /// Sends to every transport the member has.
    func notify(_ member: RelayMember, _ message: RelayMessage) {
        var sources: [RelaySource] = []
        if let address = member.udpAddress { sources.append(.udp(address)) }
        if let channel = member.tcpChannel { sources.append(.tcp(channel)) }
        send(message, to: sources)
        flushUDP()
    }

    // MARK: Housekeeping

    /// Drops transports that have been silent longer than the liveness timeout.
    func sweep(now: UInt64) {
        let timeout = nanoseconds(configuration.livenessTimeout)
        for match in Array(matches.values) {
            for member in match.members {
                if let address = member.udpAddress, now &- member.lastHeardUDP > timeout {
                    detach(.udp(address), from: member)
                }
                if let channel = member.tcpChannel, now &- member.lastHeardTCP > timeout {
                    detach(.tcp(channel), from: member)
                    channel.close(promise: nil)
                }
            }
        }
        sweepSignalling(now: now, timeout: timeout)
    }

    /// Members that sent voice within the last second.
    func currentSenders(now: UInt64) -> Int {
        var count = 0
        for match in matches.values {
            for member in match.members where member.lastVoice != 0 && now &- member.lastVoice < 1_000_000_000 {
                count += 1
            }
        }
        return count
    }

    func member(match: String, participant: String) -> RelayMember? {
        matches[match]?.member(participant: participant)
    }

    /// Tells every member the relay is going away, then forgets them all.
    func shutDown() {
        for match in Array(matches.values) {
            for member in match.members {
                notify(member, .kicked(.shutdown))
                member.tcpChannel?.close(promise: nil)
            }
            // Members refer to their match; emptying it breaks the cycle.
            match.members = []
        }
        matches = [:]
        udpMembers = [:]
        tcpMembers = [:]
        participantCount = 0
        shutDownSignalling()
    }
}
