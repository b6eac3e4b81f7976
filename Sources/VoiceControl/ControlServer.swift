import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// The control socket: a Unix-domain socket speaking JSON lines, a thin layer over a
/// `VoiceSessionControl` (or over any answer to a line). Every request gets one reply line; a bad request gets an error reply
/// and the connection stays open. Several clients may connect at once.
///
/// Only the user who started it may connect (the socket file is mode 0600). A socket file left
/// behind by a process that ended is replaced; one another process listens on is refused.
public final class ControlServer: Sendable {
    /// Lines longer than this are answered with an error and discarded.
    public static let maximumLineBytes = 64 * 1024

    public let path: String
    private let channel: any Channel
    private let connections: ControlConnections
    private let identity: UnixSocketPath.FileIdentity?

    private init(
        path: String, channel: any Channel, connections: ControlConnections,
        identity: UnixSocketPath.FileIdentity?
    ) {
        self.path = path
        self.channel = channel
        self.connections = connections
        self.identity = identity
    }

    /// Refuses a path no socket can be bound at (empty or too long) without touching the file
    /// system, so that options can be checked before a session starts.
    public static func checkPath(_ path: String) throws(ControlError) {
        try UnixSocketPath.check(path)
    }

    /// Listens on `path` until `close()`.
    public static func start(
        path: String, control: any VoiceSessionControl, eventLoopGroup: (any EventLoopGroup)? = nil
    ) async throws(ControlError) -> ControlServer {
        let dispatcher = ControlDispatcher(control: control)
        return try await listen(path: path, eventLoopGroup: eventLoopGroup) { connections in
            ControlConnectionHandler(
                dispatcher: dispatcher, connections: connections, maximumLineBytes: maximumLineBytes)
        }
    }

    /// Listens on `path` until `close()`, answering each request line with the line `answer`
    /// returns, in order: the same socket for a service other than a voice session (the relay's
    /// admin socket).
    public static func start(
        path: String, eventLoopGroup: (any EventLoopGroup)? = nil,
        answer: @escaping @Sendable ([UInt8]) async -> String
    ) async throws(ControlError) -> ControlServer {
        try await listen(path: path, eventLoopGroup: eventLoopGroup) { connections in
            AnsweringConnectionHandler(answer: answer, connections: connections, maximumLineBytes: maximumLineBytes)
        }
    }

    private static func listen(
        path: String, eventLoopGroup: (any EventLoopGroup)?,
        makeHandler: @escaping @Sendable (ControlConnections) -> any ChannelHandler
    ) async throws(ControlError) -> ControlServer {
        try UnixSocketPath.prepare(path)
        let connections = ControlConnections()
        let group = eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(makeHandler(connections))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false).get()
        } catch {
            throw .socket("cannot listen on \(path): \(error); check that its directory exists and is writable")
        }
        chmod(path, 0o600)
        return ControlServer(
            path: path, channel: channel, connections: connections, identity: UnixSocketPath.identity(of: path))
    }

    /// How many clients are connected.
    public var connectionCount: Int { connections.count }

    /// Stops listening, closes every client connection and removes the socket file.
    public func close() async {
        try? await channel.close()
        await connections.closeAll()
        UnixSocketPath.remove(path, ifStill: identity)
    }
}
