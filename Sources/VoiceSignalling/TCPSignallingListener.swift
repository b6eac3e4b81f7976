import NIOCore
import NIOPosix
import Synchronization
import VoiceEngine

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for calls on a TCP port and hands over one link at a time.
///
/// While a link is open (accepted or waiting to be), a second caller is refused with a frame that
/// says this side is busy, and its `connect` throws `.refused` with that reason.
///
/// Thread contract: every method may be called from any thread; `accept` by one task at a time.
public final class TCPSignallingListener: Sendable {
    /// How long a connected caller has to say hello before the connection is dropped.
    static let helloTimeout: TimeAmount = .seconds(10)

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
        }
        let state = Mutex(State())
        let continuation: AsyncStream<TCPSignallingLink>.Continuation

        init(continuation: AsyncStream<TCPSignallingLink>.Continuation) {
            self.continuation = continuation
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
    /// (0 for any free one).
    public static func bind(host: String = "0.0.0.0", port: Int, participant: ParticipantID)
        async throws(SignallingLinkError) -> TCPSignallingListener
    {
        guard (0...65_535).contains(port) else { throw .invalidPort(port) }
        try TCPSignallingLink.validate(participant)
        let (links, continuation) = AsyncStream.makeStream(of: TCPSignallingLink.self)
        let shared = Shared(continuation: continuation)
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 8)
                // Lets a listener restart at once on a port whose last call is in TIME_WAIT; Linux still
                // refuses a second listener on a port that is in use.
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { child in
                    let connection = LinkConnection()
                    return child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(LinkChannelHandler(connection: connection))
                        connection.setChannel(child)
                        Self.answer(connection, on: child, participant: participant, shared: shared)
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

    /// Answers the caller's hello: a hello back and a link for `accept`, or a refusal.
    private static func answer(
        _ connection: LinkConnection, on child: any Channel, participant: ParticipantID, shared: Shared
    ) {
        let timer = child.eventLoop.scheduleTask(in: helloTimeout) {
            connection.completeHello(.failure(.closedDuringHello))
        }
        connection.onHello { result in
            timer.cancel()
            guard case .success(let caller) = result else {
                child.close(promise: nil)
                return
            }
            let refusal: String? = shared.state.withLock { state in
                if state.isClosed { return "\"\(participant)\" has stopped listening" }
                if let busy = state.busyWith {
                    return "\"\(participant)\" is already in a call with \"\(busy)\"; try again when it has ended"
                }
                if caller == participant {
                    return "both sides are called \"\(participant)\"; give each side its own --name"
                }
                state.busyWith = caller
                return nil
            }
            if let refusal {
                connection.send(.refused(reason: refusal))
                connection.end(.closedLocally)
                child.close(promise: nil)
                return
            }
            connection.send(.hello(participant: participant))
            let link = TCPSignallingLink(participant: participant, remote: caller, connection: connection)
            link.onClose { _ in
                shared.state.withLock { $0.busyWith = nil }
                child.close(promise: nil)
            }
            shared.continuation.yield(link)
        }
    }

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
