import NIOCore
import NIOPosix
import VoiceCore
import VoiceRelayShared
import VoiceTransport
import VoiceWire

/// The protocol state of one `RelayClient`.
///
/// Thread contract: created, used and released only on the client's event loop.
final class RelayClientCore {
    private(set) var configuration: RelayClientConfiguration
    /// The relays the client was given, and the one it joins now.
    private var relays: RelayAddresses
    private var relayAddress: SocketAddress {
        get { relays.current }
        set { relays.current = newValue }
    }
    /// Whether the last join attempt was answered (joined, refused or redirected).
    private var joinAnswered = true
    /// While the match moves (the relay drains): the relay being left, kept (and sent to as well)
    /// until it lets the client go, once every member has joined the new home (or after
    /// `maximumMoveOverlap`), so that no one hears a gap.
    private var leaving: SocketAddress?
    /// The new home, as the move named it; told back to the relay being left once joined there.
    private var movingTo = ""
    /// When the new home answered the move's join.
    private var movedAt: UInt64?
    /// When the relay being left was last told the client has joined the new home.
    private var arrivalToldAt: UInt64 = 0
    /// The refusal the join got last, if it only delays it (full, the cluster unavailable).
    private var lastTemporaryRefusal: RelayRefusal?
    private let loop: any EventLoop
    private let onDatagram: @Sendable ([UInt8]) -> Void
    private let onEvent: @Sendable (RelayClientEvent) -> Void
    private let publishState: @Sendable (RelayClientState) -> Void
    private var channel: (any Channel)?
    private var connecting = false
    private var state = RelayClientState.joining
    private var lastHeard: UInt64 = 0
    private var lastSent: UInt64 = 0
    private var lastJoinAttempt: UInt64 = 0
    /// The channel names the last join carried.
    private var namesInJoin: [ChannelNumber: String] = [:]
    private var nonce: UInt64 = 0
    private var isClosed = false
    /// What the relay last said of the game server's mute; it says it again at every join.
    private var isServerMuted = false
    /// Where the player stands, for the relay's positional channels; told after every join.
    private var position: VoicePosition?
    private var lastPositionSent: UInt64 = 0

    init(
        configuration: RelayClientConfiguration, relays: [SocketAddress], loop: any EventLoop,
        onDatagram: @escaping @Sendable ([UInt8]) -> Void, onEvent: @escaping @Sendable (RelayClientEvent) -> Void,
        publishState: @escaping @Sendable (RelayClientState) -> Void
    ) {
        self.configuration = configuration
        self.relays = RelayAddresses(relays)
        self.loop = loop
        self.onDatagram = onDatagram
        self.onEvent = onEvent
        self.publishState = publishState
    }

    /// Opens the UDP socket (kept for the client's lifetime so the relay sees one address);
    /// TCP connects from `tick`.
    func open() -> EventLoopFuture<Void> {
        guard configuration.transport == .udp else { return loop.makeSucceededVoidFuture() }
        let bound = NIOLoopBound(self, eventLoop: loop)
        let host = configuration.localHost ?? (relayAddress.protocol == .inet6 ? "::" : "0.0.0.0")
        return DatagramBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RelayClientUDPHandler(core: bound.value))
                }
            }
            .bind(host: host, port: 0)
            .map { channel in bound.value.channel = channel }
    }

    private func connectTCP(now: UInt64) {
        guard !connecting, !isClosed else { return }
        connecting = true
        lastJoinAttempt = now
        let bound = NIOLoopBound(self, eventLoop: loop)
        RelayTCPConnection.open(
            on: loop, to: relayAddress, timeout: TimeAmount(configuration.livenessTimeout),
            received: { buffer, channel in bound.value.received(buffer, from: .tcp(channel)) },
            closed: { bound.value.tcpClosed($0) }
        )
        .whenComplete { result in
            let core = bound.value
            core.connecting = false
            guard case .success(let channel) = result else { return }
            guard !core.isClosed else { return channel.close(promise: nil) }
            core.channel = channel
            core.sendJoin(now: NIODeadline.now().uptimeNanoseconds)
        }
    }

    // MARK: Periodic work

    func tick(now: UInt64) {
        guard !isClosed else { return }
        switch state {
        case .refused, .kicked, .closed: return
        case .joined:
            if now &- lastHeard > nanoseconds(configuration.livenessTimeout) {
                setState(.lost)
                onEvent(.lost)
                // The relay is gone: the next attempt goes to the next one.
                joinAnswered = false
                finishMove()
                if configuration.transport == .tcp {
                    channel?.close(promise: nil)
                    channel = nil
                }
                return
            }
            if leaving != nil { continueMove(now: now) }
            if position != nil, now &- lastPositionSent >= nanoseconds(configuration.positionRepeatInterval) {
                sendPosition(now: now)
            } else if now &- lastSent >= nanoseconds(configuration.keepaliveInterval) {
                nonce &+= 1
                send(.keepalive(nonce: nonce), now: now)
            }
        case .joining, .lost:
            guard now &- lastJoinAttempt >= nanoseconds(configuration.rejoinInterval) else { return }
            if !joinAnswered { tryNextRelay() }
            joinAnswered = false
            if configuration.transport == .tcp, channel == nil {
                connectTCP(now: now)
            } else {
                sendJoin(now: now)
            }
        }
    }

    /// Moves on to the next relay the client was given (a TCP connection is made anew).
    private func tryNextRelay() {
        if let next = relays.next() { switchRelay(to: next) }
    }

    /// Joins at `address` from now on; over TCP, on a connection to it.
    private func switchRelay(to address: SocketAddress) {
        guard address != relayAddress else { return }
        relayAddress = address
        if configuration.transport == .tcp, let channel {
            // Closed on purpose: not a loss to report.
            self.channel = nil
            channel.close(promise: nil)
        }
    }

    /// The relay redirected the join to the match's home: join there at once.
    private func followRedirect(to text: String, now: UInt64) {
        guard !state.isJoined, let address = RelayAddresses.address(text) else { return }
        let atOnce = relays.redirected()
        switchRelay(to: address)
        guard atOnce else { return }
        joinAnswered = true
        if configuration.transport == .tcp {
            if channel == nil { connectTCP(now: now) }
        } else {
            sendJoin(now: now)
        }
    }

    /// The match moves to `text` (the relay drains): join there, keeping this relay until it lets
    /// the client go. Over TCP the connection moves at once.
    private func beginMove(to text: String, now: UInt64) {
        guard state.isJoined, leaving == nil, let address = RelayAddresses.address(text), address != relayAddress else {
            return
        }
        if configuration.transport == .tcp {
            switchRelay(to: address)
            setState(.lost)
            onEvent(.lost)
            joinAnswered = true
            connectTCP(now: now)
            return
        }
        leaving = relayAddress
        movingTo = text
        relayAddress = address
        movedAt = nil
        sendJoin(now: now)
    }

    /// While moving: joins the new home again until it answers, then tells the relay being left
    /// (again every keepalive interval, a datagram may be lost) until it lets go; leaves it
    /// anyway after `maximumMoveOverlap`.
    private func continueMove(now: UInt64) {
        guard let movedAt, let leaving else {
            if now &- lastJoinAttempt >= nanoseconds(configuration.rejoinInterval) { sendJoin(now: now) }
            return
        }
        if now &- movedAt >= nanoseconds(configuration.maximumMoveOverlap) {
            send(.leave, now: now, to: leaving)
            return finishMove()
        }
        if now &- arrivalToldAt >= nanoseconds(configuration.keepaliveInterval) {
            arrivalToldAt = now
            send(.moving(address: movingTo), now: now, to: leaving)
        }
    }

    private func finishMove() {
        leaving = nil
        movedAt = nil
    }

    private func sendJoin(now: UInt64) {
        lastJoinAttempt = now
        namesInJoin = configuration.channelNames
        send(
            .join(
                RelayJoin(
                    token: configuration.token, participant: configuration.participant,
                    channels: configuration.channels, muted: configuration.muted,
                    channelNames: configuration.channelNames)), now: now)
    }

    // MARK: Receiving

    /// Where something the client received came from.
    enum Origin {
        case udp(SocketAddress)
        case tcp(any Channel)
    }

    func received(_ buffer: ByteBuffer, from origin: Origin) {
        guard !isClosed, let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return }
        if case .tcp(let from) = origin, from !== channel { return }
        let now = NIODeadline.now().uptimeNanoseconds
        guard first == RelayMessage.firstByte else {
            guard state.isJoined else { return }
            lastHeard = now
            onDatagram(Array(buffer.readableBytesView))
            return
        }
        let parsed = buffer.withUnsafeReadableBytes { raw -> RelayMessage? in
            do { return try RelayMessage(parsing: raw) } catch { return nil }
        }
        guard let message = parsed else { return }
        lastHeard = now
        // Over UDP, answers to earlier join attempts (another relay, before a redirect or the
        // next relay was tried) may still arrive: the relay that says `joined` is where the
        // client is, and only the relay asked last may send it elsewhere. Voice needs neither.
        var (fromLeaving, fromCurrent) = (false, true)
        if case .udp(let address) = origin {
            (fromLeaving, fromCurrent) = (address == leaving, address == relayAddress)
        }
        if fromLeaving {
            // The relay being left lets the client go once everyone has moved; the rest of what it
            // says is of a membership that is ending.
            if case .kicked = message { finishMove() }
            return
        }
        switch message {
        case .joined(let mediaID):
            if case .udp(let address) = origin, !fromCurrent { relayAddress = address }
            joinAnswered = true
            relays.joined()
            lastTemporaryRefusal = nil
            if let leaving, movedAt == nil {
                movedAt = now
                arrivalToldAt = now
                send(.moving(address: movingTo), now: now, to: leaving)
            }
            if state != .joined(mediaID: mediaID) {
                setState(.joined(mediaID: mediaID))
                for (channel, range) in configuration.hearingRanges.sorted(by: { $0.key < $1.key }) {
                    send(.hearingRange(channel: channel, range: range), now: now)
                }
                // Names given while the join was on its way.
                for (channel, name) in configuration.channelNames.sorted(by: { $0.key < $1.key })
                where namesInJoin[channel] != name {
                    send(.channelName(channel, name), now: now)
                }
                sendPosition(now: now)
                onEvent(.joined(mediaID: mediaID))
            }
        case .refused(let reason):
            joinAnswered = true
            switch reason {
            case .notJoined:
                // The relay forgot this member (restart or timeout): join again at once.
                if state.isJoined {
                    setState(.lost)
                    onEvent(.lost)
                }
                sendJoin(now: now)
            case .tooManyChannels, .tooManyMutes:
                onEvent(.refused(reason))
            case let reason where reason.isTemporary:
                // A draining relay leaves the join to another relay of the cluster.
                if reason == .draining { joinAnswered = false }
                // Retried until it passes: reported once, not at every attempt.
                if reason != lastTemporaryRefusal { onEvent(.refused(reason)) }
                lastTemporaryRefusal = reason
                if state.isJoined { setState(.lost) }
            default:
                setState(.refused(reason))
                onEvent(.refused(reason))
            }
        case .kicked(let reason):
            if reason == .shutdown {
                setState(.lost)
                joinAnswered = false
            } else {
                setState(.kicked(reason))
            }
            onEvent(.kicked(reason))
        case .moved(let channel):
            configuration.channels = channel == 0 ? [] : [channel]
            onEvent(.moved(channel: channel))
        case .serverMute(let on):
            // Only a change is news: the relay repeats the state at every join, so that a client
            // rejoining a relay that forgot the mute (it restarted) hears it lifted.
            guard on != isServerMuted else { break }
            isServerMuted = on
            onEvent(.serverMute(on))
        case .position(let mediaID, let position):
            onEvent(.position(mediaID: mediaID, position))
        case .redirect(let address):
            if fromCurrent { followRedirect(to: address, now: now) }
        case .moving(let address):
            beginMove(to: address, now: now)
        case .pong, .join, .startChannel, .stopChannel, .mute, .unmute, .keepalive, .leave, .signalJoin, .signalJoined,
            .memberJoined, .memberLeft, .sendSignal, .signal, .hearingRange, .channelName:
            break
        }
    }

    func tcpClosed(_ closed: any Channel) {
        guard channel === closed else { return }
        channel = nil
        if state.isJoined {
            setState(.lost)
            onEvent(.lost)
        }
    }

    // MARK: Sending

    func sendDatagram(_ datagram: [UInt8]) {
        guard let channel else { return }
        var buffer = channel.allocator.buffer(capacity: datagram.count)
        buffer.writeBytes(datagram)
        write(buffer, on: channel)
        // While moving, the players still on the old relay hear it there.
        if let leaving { write(buffer, on: channel, to: leaving) }
        lastSent = NIODeadline.now().uptimeNanoseconds
    }

    /// Sends a control message to the relay (`to` another one over UDP); while moving, the old
    /// relay gets what changes the membership too (channels, mutes, positions).
    private func send(_ message: RelayMessage, now: UInt64, to address: SocketAddress? = nil) {
        guard let channel, let bytes = try? message.serialized() else { return }
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        write(buffer, on: channel, to: address)
        if address == nil, let leaving {
            switch message {
            case .join, .leave, .keepalive: break
            default: write(buffer, on: channel, to: leaving)
            }
        }
        lastSent = now
    }

    private func write(_ buffer: ByteBuffer, on channel: any Channel, to address: SocketAddress? = nil) {
        if configuration.transport == .udp {
            channel.writeAndFlush(
                AddressedEnvelope(remoteAddress: address ?? relayAddress, data: buffer), promise: nil)
        } else {
            channel.writeAndFlush(buffer, promise: nil)
        }
    }

    func startChannel(_ channel: ChannelNumber) {
        if !configuration.channels.contains(channel) { configuration.channels.append(channel) }
        send(.startChannel(channel), now: NIODeadline.now().uptimeNanoseconds)
    }

    func stopChannel(_ channel: ChannelNumber) {
        configuration.channels.removeAll { $0 == channel }
        send(.stopChannel(channel), now: NIODeadline.now().uptimeNanoseconds)
    }

    func mute(_ id: MediaID) {
        if !configuration.muted.contains(id) { configuration.muted.append(id) }
        send(.mute(id), now: NIODeadline.now().uptimeNanoseconds)
    }

    func unmute(_ id: MediaID) {
        configuration.muted.removeAll { $0 == id }
        send(.unmute(id), now: NIODeadline.now().uptimeNanoseconds)
    }

    /// Names `channel` for the relay: sent now if joined, and with every join after.
    func nameChannel(_ channel: ChannelNumber, _ name: String) {
        guard configuration.channelNames[channel] != name,
            RelayMessage.isValidText(name, maximum: RelayMessage.maximumChannelNameBytes)
        else { return }
        configuration.channelNames[channel] = name
        guard state.isJoined else { return }
        send(.channelName(channel, name), now: NIODeadline.now().uptimeNanoseconds)
    }

    func setHearingRange(_ range: Float, on channel: ChannelNumber) {
        configuration.hearingRanges[channel] = range > 0 ? range : nil
        guard state.isJoined else { return }
        send(.hearingRange(channel: channel, range: range), now: NIODeadline.now().uptimeNanoseconds)
    }

    func setPosition(_ position: VoicePosition) {
        self.position = position
        sendPosition(now: NIODeadline.now().uptimeNanoseconds)
    }

    private func sendPosition(now: UInt64) {
        guard case .joined(let mediaID) = state, let position else { return }
        send(.position(mediaID: mediaID, position), now: now)
        lastPositionSent = now
    }

    func updateToken(_ token: String) {
        configuration.token = token
        if case .refused = state { setState(.lost) }
        lastJoinAttempt = 0
    }

    func close() -> EventLoopFuture<Void> {
        guard !isClosed else { return loop.makeSucceededVoidFuture() }
        let now = NIODeadline.now().uptimeNanoseconds
        if state.isJoined { send(.leave, now: now) }
        if let leaving { send(.leave, now: now, to: leaving) }
        isClosed = true
        setState(.closed)
        guard let channel else { return loop.makeSucceededVoidFuture() }
        self.channel = nil
        return channel.close()
    }

    private func setState(_ new: RelayClientState) {
        state = new
        publishState(new)
    }
}
