import NIOCore
import NIOPosix
import VoiceRelayShared
import VoiceWire

/// The protocol state of one `RelaySignallingClient`.
///
/// Thread contract: created, used and released only on the client's event loop.
final class RelaySignallingClientCore {
    /// What the client's public properties read, published under a lock on every change.
    struct Published {
        var state = RelaySignallingState.joining
        var members: [String] = []
        var droppedSignals = 0
    }

    private struct HeldSignal {
        var destination: String
        var payload: [UInt8]
        var since: UInt64
    }

    /// The relays the client was given, and the one it connects to now.
    private var relays: RelayAddresses
    /// Whether the relay answered the last attempt (joined, refused or redirected).
    private var attemptAnswered = true
    private let token: String
    private let participant: String
    private let timing: RelaySignallingTiming
    private let loop: any EventLoop
    private let onEvent: @Sendable (RelaySignallingEvent) -> Void
    private let publish: @Sendable (@Sendable (inout Published) -> Void) -> Void
    private var channel: (any Channel)?
    private var connecting = false
    private var isClosed = false
    private var state = RelaySignallingState.joining
    private var hasJoined = false
    /// Members reported present (including those within their leave grace).
    private var members: Set<String> = []
    /// Members missing from the relay's view, and when they will be reported gone.
    private var leaving: [String: UInt64] = [:]
    private var held = CircularBuffer<HeldSignal>()
    private var heldBytes = 0
    private var droppedSignals = 0
    private var lastHeard: UInt64 = 0
    private var lastSent: UInt64 = 0
    private var lastAttempt: UInt64 = 0
    private var nonce: UInt64 = 0

    init(
        relays: [SocketAddress], token: String, participant: String, timing: RelaySignallingTiming,
        loop: any EventLoop, onEvent: @escaping @Sendable (RelaySignallingEvent) -> Void,
        publish: @escaping @Sendable (@Sendable (inout Published) -> Void) -> Void
    ) {
        self.relays = RelayAddresses(relays)
        self.token = token
        self.participant = participant
        self.timing = timing
        self.loop = loop
        self.onEvent = onEvent
        self.publish = publish
    }

    // MARK: Periodic work

    func tick(now: UInt64) {
        guard !isClosed else { return }
        expireLeaves(now: now)
        expireHeld(now: now)
        switch state {
        case .refused, .kicked, .closed: return
        case .joined:
            if now &- lastHeard > nanoseconds(timing.livenessTimeout) {
                connectionLost()
            } else if now &- lastSent >= nanoseconds(timing.keepaliveInterval) {
                nonce &+= 1
                write(.keepalive(nonce: nonce), flush: true)
            }
        case .joining, .lost:
            if channel != nil, now &- lastAttempt > nanoseconds(timing.livenessTimeout) {
                // Connected but never answered: start over.
                channel?.close(promise: nil)
                channel = nil
            }
            if channel == nil, !connecting, now &- lastAttempt >= nanoseconds(timing.reconnectInterval) {
                if !attemptAnswered, let next = relays.next() { relays.current = next }
                connect(now: now)
            }
        }
    }

    private func connect(now: UInt64) {
        attemptAnswered = false
        connecting = true
        lastAttempt = now
        let bound = NIOLoopBound(self, eventLoop: loop)
        RelayTCPConnection.open(
            on: loop, to: relays.current, timeout: TimeAmount(timing.livenessTimeout),
            received: { bound.value.received($0, on: $1) }, closed: { bound.value.tcpClosed($0) }
        )
        .whenComplete { result in
            let core = bound.value
            core.connecting = false
            guard case .success(let channel) = result else { return }
            guard !core.isClosed else { return channel.close(promise: nil) }
            let now = NIODeadline.now().uptimeNanoseconds
            core.channel = channel
            core.lastAttempt = now
            core.lastHeard = now
            core.write(.signalJoin(token: core.token, participant: core.participant), flush: true)
        }
    }

    // MARK: Receiving

    func received(_ buffer: ByteBuffer, on source: any Channel) {
        guard !isClosed, source === channel else { return }
        let parsed = buffer.withUnsafeReadableBytes { raw -> RelayMessage? in
            do { return try RelayMessage(parsing: raw) } catch { return nil }
        }
        guard let message = parsed else { return }
        let now = NIODeadline.now().uptimeNanoseconds
        lastHeard = now
        switch message {
        case .signalJoined(let roster):
            attemptAnswered = true
            relays.joined()
            joined(roster, now: now)
        case .memberJoined(let member):
            guard state == .joined else { return }
            memberPresent(member)
            flush()
        case .memberLeft(let member):
            guard state == .joined else { return }
            memberAbsent(member, now: now)
        case .signal(let sender, let payload): onEvent(.signal(from: sender, payload: payload))
        case .refused(let reason):
            attemptAnswered = reason != .draining
            refused(reason)
        case .redirect(let address):
            guard state != .joined else { return }
            reconnect(to: address, now: now, atOnce: relays.redirected())
        case .moving(let address):
            // The others hear this member gone only after their leave grace: it is back sooner.
            guard state == .joined else { return }
            reconnect(to: address, now: now, atOnce: true)
        case .kicked(let reason):
            if reason == .shutdown {
                connectionLost()
            } else {
                stop(.kicked(reason))
                onEvent(.kicked(reason))
            }
        case .pong, .join, .joined, .startChannel, .stopChannel, .mute, .unmute, .keepalive, .leave, .moved,
            .serverMute, .signalJoin, .sendSignal, .position, .hearingRange, .channelName:
            break
        }
    }

    /// Connects to the relay at `text` (HOST:PORT) instead, at once or at the normal pace.
    private func reconnect(to text: String, now: UInt64, atOnce: Bool) {
        guard let address = RelayAddresses.address(text) else { return }
        relays.current = address
        attemptAnswered = true
        if let channel {
            // Closed on purpose: not a loss to report.
            self.channel = nil
            channel.close(promise: nil)
        }
        if state == .joined { setState(.lost) }
        if atOnce, !connecting { connect(now: now) }
    }

    private func joined(_ roster: [String], now: UInt64) {
        setState(.joined)
        if !hasJoined {
            hasJoined = true
            members = Set(roster)
            publishMembers()
            onEvent(.joined(members: roster.sorted()))
        } else {
            onEvent(.rejoined)
            let present = Set(roster)
            for member in roster.sorted() { memberPresent(member) }
            for member in members.sorted() where !present.contains(member) { memberAbsent(member, now: now) }
        }
        flush()
    }

    private func memberPresent(_ member: String) {
        // Back within its grace: it was never reported gone, so nothing is reported now.
        if leaving.removeValue(forKey: member) != nil { return }
        guard members.insert(member).inserted else { return }
        publishMembers()
        onEvent(.memberJoined(member))
    }

    private func memberAbsent(_ member: String, now: UInt64) {
        guard members.contains(member), leaving[member] == nil else { return }
        leaving[member] = now &+ nanoseconds(timing.leaveGrace)
        expireLeaves(now: now)
    }

    private func expireLeaves(now: UInt64) {
        for (member, deadline) in leaving.sorted(by: { $0.key < $1.key }) where now >= deadline {
            leaving[member] = nil
            members.remove(member)
            publishMembers()
            onEvent(.memberLeft(member))
        }
    }

    private func refused(_ reason: RelayRefusal) {
        switch reason {
        case .notJoined:
            write(.signalJoin(token: token, participant: participant), flush: true)
        case let reason where reason.isTemporary:
            // Room may open up, the cluster answer again, another relay take it: try again later.
            onEvent(.refused(reason))
            connectionLost()
        default:
            stop(.refused(reason))
            onEvent(.refused(reason))
        }
    }

    func tcpClosed(_ closed: any Channel) {
        guard channel === closed else { return }
        connectionLost()
    }

    private func connectionLost() {
        channel?.close(promise: nil)
        channel = nil
        attemptAnswered = false
        guard state == .joined else { return }
        setState(.lost)
        onEvent(.lost)
    }

    /// A final state: no more reconnecting.
    private func stop(_ final: RelaySignallingState) {
        setState(final)
        channel?.close(promise: nil)
        channel = nil
        dropHeld()
    }

    // MARK: Sending

    func enqueue(_ payload: [UInt8], to destination: String) {
        switch state {
        case .refused, .kicked, .closed:
            count(dropped: 1)
            return
        case .joining, .joined, .lost: break
        }
        held.append(HeldSignal(destination: destination, payload: payload, since: NIODeadline.now().uptimeNanoseconds))
        heldBytes += payload.count
        var overflow = 0
        while held.count > timing.maximumHeldSignals || heldBytes > timing.maximumHeldBytes,
            let oldest = held.popFirst()
        {
            heldBytes -= oldest.payload.count
            overflow += 1
        }
        count(dropped: overflow)
        flush()
    }

    /// Sends every held signal whose destination is present, in order; keeps the rest.
    private func flush() {
        guard state == .joined, channel != nil, !held.isEmpty else { return }
        var kept = CircularBuffer<HeldSignal>(initialCapacity: held.count)
        var wrote = false
        while let signal = held.popFirst() {
            if members.contains(signal.destination) && leaving[signal.destination] == nil {
                write(.sendSignal(to: signal.destination, payload: signal.payload), flush: false)
                heldBytes -= signal.payload.count
                wrote = true
            } else {
                kept.append(signal)
            }
        }
        held = kept
        if wrote { channel?.flush() }
    }

    private func expireHeld(now: UInt64) {
        let limit = nanoseconds(timing.holdTime)
        var expired = 0
        while let first = held.first, now &- first.since > limit {
            heldBytes -= first.payload.count
            held.removeFirst()
            expired += 1
        }
        count(dropped: expired)
    }

    private func dropHeld() {
        count(dropped: held.count)
        held.removeAll()
        heldBytes = 0
    }

    private func write(_ message: RelayMessage, flush: Bool) {
        guard let channel, let bytes = try? message.serialized() else { return }
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        if flush {
            channel.writeAndFlush(buffer, promise: nil)
        } else {
            channel.write(buffer, promise: nil)
        }
        lastSent = NIODeadline.now().uptimeNanoseconds
    }

    func close() -> EventLoopFuture<Void> {
        guard !isClosed else { return loop.makeSucceededVoidFuture() }
        if state == .joined { write(.leave, flush: true) }
        isClosed = true
        setState(.closed)
        dropHeld()
        guard let channel else { return loop.makeSucceededVoidFuture() }
        self.channel = nil
        return channel.close()
    }

    // MARK: Publishing

    private func setState(_ new: RelaySignallingState) {
        state = new
        publish { $0.state = new }
    }

    private func publishMembers() {
        let sorted = members.sorted()
        publish { $0.members = sorted }
    }

    private func count(dropped: Int) {
        guard dropped > 0 else { return }
        droppedSignals += dropped
        let total = droppedSignals
        publish { $0.droppedSignals = total }
    }
}
