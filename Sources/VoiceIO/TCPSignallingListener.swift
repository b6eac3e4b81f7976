import NIOCore
import NIOPosix
import Synchronization
import VoiceCore
import VoiceEngine
import VoiceRelayShared
import VoiceWire

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for calls on a TCP port and hands over one link at a time.
///
/// While a link is open (accepted or waiting to be), a second caller is refused with a frame that
/// says this side is busy, and its `connect` throws `.refused` with that reason.
///
/// A connection that has not said hello is held to `Limits`, as the relay holds one that has not
/// joined: closed at its hello deadline, closed at a first frame longer than any hello, and one
/// address may hold only so many such connections and open only so many a second. Each refusal is
/// counted (`refusals`) and reported to `log`.
///
/// Thread contract: every method may be called from any thread; `accept` by one task at a time.
public final class TCPSignallingListener: Sendable {
    public struct Limits: Sendable, Hashable {
        /// How long a connected caller has to say hello before the connection is closed.
        public var helloDeadline: TimeAmount = .seconds(5)
        /// Connections one address may hold that have not said hello; more are closed as they open.
        public var maximumUnjoinedConnectionsPerAddress = 8
        /// Connections one address may open a second, with a burst of `connectionBurst`.
        public var connectionsPerSecondPerAddress: Double = 5
        public var connectionBurst: Double = 10

        public init() {}
    }

    /// Connections closed before their hello, by why.
    public struct Refusals: Sendable, Hashable {
        /// No hello within `Limits.helloDeadline`.
        public var helloTimeouts = 0
        /// Opened while their address held `maximumUnjoinedConnectionsPerAddress` without hello.
        public var addressConnectionLimit = 0
        /// Opened faster than `connectionsPerSecondPerAddress` allows.
        public var connectionRateLimited = 0
        /// A first frame longer than any hello (`SignallingFrame.maximumHelloLength`).
        public var firstFrameTooLarge = 0

        public var total: Int { helloTimeouts + addressConnectionLimit + connectionRateLimited + firstFrameTooLarge }
    }

    public let participant: ParticipantID
    /// The TCP port listened on (the one the system chose when 0 was asked for).
    public let port: Int
    private let channel: any Channel
    private let shared: Shared
    private let links: AsyncStream<TCPSignallingLink>

    /// What the accepted connections' handlers share with the listener.
    private final class Shared: Sendable {
        struct State {
            var busyWith: ParticipantID?
            var isClosed = false
            var addressLimits: AddressLimits
            var refusals = Refusals()
            /// When the address limits' refusals were last said (once a second at most, per address,
            /// so that a flood does not flood the log too).
            var lastSweep: UInt64 = 0
        }
        let state: Mutex<State>
        let continuation: AsyncStream<TCPSignallingLink>.Continuation
        let limits: Limits
        let log: @Sendable (String) -> Void

        init(
            continuation: AsyncStream<TCPSignallingLink>.Continuation, limits: Limits,
            log: @escaping @Sendable (String) -> Void
        ) {
            self.continuation = continuation
            self.limits = limits
            self.log = log
            state = Mutex(
                State(
                    addressLimits: AddressLimits(
                        maximumUnjoinedConnections: limits.maximumUnjoinedConnectionsPerAddress,
                        attemptsPerSecond: limits.connectionsPerSecondPerAddress,
                        attemptBurst: limits.connectionBurst)))
        }

        /// Counts a refusal and says it, naming the caller's address and why.
        func refuse(_ reason: WritableKeyPath<Refusals, Int>, from host: String, _ why: String) {
            state.withLock { $0.refusals[keyPath: reason] += 1 }
            log("refused a caller from \(host): \(why)")
        }
    }

    private init(
        participant: ParticipantID, port: Int, channel: any Channel, shared: Shared,
        links: AsyncStream<TCPSignallingLink>
    ) {
        self.participant = participant
        self.port = port
        self.channel = channel
        self.shared = shared
        self.links = links
    }

    /// Listens on `host` (a numeric address; "0.0.0.0" or "::" for every interface) and `port`
    /// (0 for any free one). `log` is told of each caller refused before its hello, and why.
    public static func bind(
        host: String = "0.0.0.0", port: Int, participant: ParticipantID, limits: Limits = Limits(),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws(SignallingLinkError) -> TCPSignallingListener {
        guard (0...65_535).contains(port) else { throw .invalidPort(port) }
        try TCPSignallingLink.validate(participant)
        let (links, continuation) = AsyncStream.makeStream(of: TCPSignallingLink.self)
        let shared = Shared(continuation: continuation, limits: limits, log: log)
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                // Room for a burst of connections, which the limits then close at once: a full queue
                // would make a legitimate caller wait for its SYN to be retried.
                .serverChannelOption(.backlog, value: 128)
                // Lets a listener restart at once on a port whose last call is in TIME_WAIT; Linux still
                // refuses a second listener on a port that is in use.
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { child in
                    let host = child.remoteAddress?.ipAddress ?? "?"
                    guard Self.admit(from: host, shared: shared) else { return child.close() }
                    let connection = LinkConnection()
                    return child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(
                            LinkChannelHandler(
                                connection: connection, firstFrameLimit: SignallingFrame.maximumHelloLength))
                        connection.setChannel(child)
                        Self.answer(connection, on: child, from: host, participant: participant, shared: shared)
                    }
                }
                .bind(host: host, port: port)
                .get()
        } catch {
            if let ioError = error as? IOError, ioError.errnoCode == EADDRINUSE {
                throw .portInUse(host: host, port: port)
            }
            throw .bindFailed(host: host, port: port, reason: "\(error)")
        }
        guard let boundPort = channel.localAddress?.port else {
            try? await channel.close()
            throw .bindFailed(host: host, port: port, reason: "the socket reports no local port")
        }
        return TCPSignallingListener(
            participant: participant, port: boundPort, channel: channel, shared: shared, links: links)
    }

    /// Counts a connection from `host` against its address's limits; false when it may not open.
    /// Refusals are counted at once and said once a second, summed per address.
    private static func admit(from host: String, shared: Shared) -> Bool {
        let limits = shared.limits
        let now = NIODeadline.now().uptimeNanoseconds
        let (admitted, refused): (Bool, [(host: String, refusals: AddressLimits.Refusals)]) = shared.state.withLock {
            state in
            var admitted = true
            if !state.addressLimits.admitAttempt(from: host, now: now) {
                state.refusals.connectionRateLimited += 1
                admitted = false
            } else if !state.addressLimits.admitConnection(from: host) {
                state.refusals.addressConnectionLimit += 1
                admitted = false
            }
            guard now &- state.lastSweep >= 1_000_000_000 else { return (admitted, []) }
            state.lastSweep = now
            return (admitted, state.addressLimits.sweep(now: now))
        }
        for (address, counts) in refused {
            var reasons: [String] = []
            if counts.attempts > 0 {
                reasons.append(
                    "\(counts.attempts) over \(Int(limits.connectionsPerSecondPerAddress)) connections a second "
                        + "(connection_rate_limited)")
            }
            if counts.connections > 0 {
                reasons.append(
                    "\(counts.connections) while it held \(limits.maximumUnjoinedConnectionsPerAddress) without a "
                        + "hello (address_connection_limit)")
            }
            shared.log("refused connections from \(address): " + reasons.joined(separator: ", "))
        }
        return admitted
    }

    /// Answers the caller's hello: a hello back and a link for `accept`, or a refusal.
    private static func answer(
        _ connection: LinkConnection, on child: any Channel, from host: String, participant: ParticipantID,
        shared: Shared
    ) {
        let deadline = shared.limits.helloDeadline
        let timer = child.eventLoop.scheduleTask(in: deadline) {
            shared.refuse(
                \.helloTimeouts, from: host,
                "no hello within \(Double(deadline.nanoseconds) / 1e9) s (hello_timeout)")
            connection.completeHello(.failure(.closedDuringHello))
        }
        connection.onHello { result in
            timer.cancel()
            // Said hello or gone: it no longer counts against its address.
            shared.state.withLock { $0.addressLimits.release(from: host) }
            guard case .success(let caller) = result else {
                if case .failure(.protocolError(.oversize(_, let length, _))) = result {
                    shared.refuse(
                        \.firstFrameTooLarge, from: host,
                        "a first frame of \(length) bytes, longer than any hello (first_frame_too_large)")
                }
                child.close(promise: nil)
                return
            }
            let refusal: String? = shared.state.withLock { state in
                if state.isClosed { return "\"\(participant)\" has stopped listening" }
                if let busy = state.busyWith {
                    return "\"\(participant)\" is already in a call with \"\(busy)\"; try again when it has ended"
                }
                if caller == participant.rawValue {
                    return "both sides are called \"\(participant)\"; give each side its own --name"
                }
                state.busyWith = ParticipantID(caller)
                return nil
            }
            if let refusal {
                connection.send(.refused(reason: refusal))
                connection.end(.closedLocally)
                child.close(promise: nil)
                return
            }
            connection.send(.hello(participant: participant.rawValue))
            let link = TCPSignallingLink(
                participant: participant, remote: ParticipantID(caller), connection: connection)
            link.onClose { _ in
                shared.state.withLock { $0.busyWith = nil }
                child.close(promise: nil)
            }
            shared.continuation.yield(link)
        }
    }

    /// Connections closed before their hello so far, by why.
    public var refusals: Refusals { shared.state.withLock { $0.refusals } }

    /// The next caller's link, once its hello has arrived. Throws `.listenerClosed` when the listener
    /// is closed or the waiting task is cancelled.
    public func accept() async throws(SignallingLinkError) -> TCPSignallingLink {
        var iterator = links.makeAsyncIterator()
        guard let link = await iterator.next() else { throw .listenerClosed }
        return link
    }

    /// Stops listening. Links already handed out stay open.
    public func close() async {
        shared.state.withLock { $0.isClosed = true }
        shared.continuation.finish()
        try? await channel.close()
    }
}
