import NIOCore
import NIOPosix
import VoiceCore
import VoiceEngine
import VoiceWire

#if canImport(Glibc)
    import Glibc
#endif

/// A 1:1 signalling link between two hosts over TCP: the app's channel of a call.
///
/// It is a `VoiceChatClient`: the engine's signalling goes over it reliably and in order, and so do
/// its real-time datagrams when no direct path works (`offersRealTimeData` is true, so `--path app`
/// works over it). What arrives goes to the attached `VoiceChatService`; frames that arrive before
/// `attach` are held and handed over then, so nothing the peer sent right after the hello is lost.
///
/// Thread contract: every method may be called from any thread; sending never blocks.
public final class TCPSignallingLink: VoiceChatClient {
    public let participantID: ParticipantID
    /// The peer's participant ID, learnt in the link's hello exchange.
    public let remoteParticipant: ParticipantID
    let connection: LinkConnection

    init(participant: ParticipantID, remote: ParticipantID, connection: LinkConnection) {
        self.participantID = participant
        self.remoteParticipant = remote
        self.connection = connection
    }

    /// Connects to a listener at `host` (a name or a numeric address) and `port`, and exchanges hellos.
    ///
    /// - Parameter timeout: how long connecting may take, and then how long the hello may take.
    public static func connect(host: String, port: Int, participant: ParticipantID, timeout: Duration)
        async throws(SignallingLinkError) -> TCPSignallingLink
    {
        guard (1...65_535).contains(port) else { throw .invalidPort(port) }
        try validate(participant)
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let wait = TimeAmount(timeout)
        let connection = LinkConnection()
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(wait)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(LinkChannelHandler(connection: connection))
                    }
                }
                .connect(host: host, port: port)
                .get()
        } catch {
            throw connectFailure(error, host: host, port: port, seconds: seconds)
        }
        connection.setChannel(channel)
        connection.send(.hello(participant: participant.rawValue))
        let timer = channel.eventLoop.scheduleTask(in: wait) {
            connection.completeHello(.failure(.helloTimedOut(host: host, port: port, seconds: seconds)))
        }
        let result = await withCheckedContinuation { continuation in
            connection.onHello { continuation.resume(returning: $0) }
        }
        timer.cancel()
        switch result {
        case .success(let remote):
            return TCPSignallingLink(participant: participant, remote: ParticipantID(remote), connection: connection)
        case .failure(let error):
            connection.end(.closedLocally)
            try? await channel.close()
            throw error
        }
    }

    static func validate(_ participant: ParticipantID) throws(SignallingLinkError) {
        guard !participant.isEmpty else { throw .invalidParticipant("it is empty") }
        guard participant.rawValue.utf8.count <= SignallingFrame.maximumParticipantBytes else {
            throw .invalidParticipant("it has \(participant.rawValue.utf8.count) bytes")
        }
    }

    // MARK: VoiceChatClient

    public func send(_ data: [UInt8], to participant: ParticipantID) {
        guard participant == remoteParticipant else { return }
        connection.send(.signalling(data))
    }

    public var offersRealTimeData: Bool { true }

    public func sendRealTime(_ data: [UInt8], to participant: ParticipantID) {
        guard participant == remoteParticipant, data.count <= SignallingFrame.maximumRealTimeBytes else { return }
        connection.send(.realTime(data))
    }

    // MARK: What arrives

    /// Hands what arrives to `service`: signalling to `received`, real-time data to `receivedRealTime`.
    public func attach(_ service: VoiceChatService) {
        let remote = remoteParticipant
        setReceiver { frame in
            switch frame {
            case .signalling(let bytes): service.received(bytes, from: remote)
            case .realTime(let bytes): service.receivedRealTime(bytes, from: remote)
            default: break
            }
        }
    }

    /// Hands every signalling and real-time frame to `receiver`, in arrival order, on the link's event
    /// loop thread (it must not block). Replaces an earlier receiver or service.
    public func setReceiver(_ receiver: @escaping @Sendable (SignallingFrame) -> Void) {
        connection.setReceiver(receiver)
    }

    // MARK: The end

    /// Says bye and closes the link.
    public func close() async {
        await connection.close()
    }

    /// How the link ended; waits until it has.
    public var closed: SignallingLinkEnding {
        get async { await connection.waitForEnding() }
    }

    /// How the link ended, or nil while it is open.
    public var ending: SignallingLinkEnding? { connection.ending }

    /// Calls `handler` once when the link ends (at once if it has already), on whichever thread ends it.
    public func onClose(_ handler: @escaping @Sendable (SignallingLinkEnding) -> Void) {
        connection.onEnd(handler)
    }

    // MARK: Errors

    private static func connectFailure(_ error: any Error, host: String, port: Int, seconds: Double)
        -> SignallingLinkError
    {
        if let connectionError = error as? NIOConnectionError {
            if connectionError.connectionErrors.isEmpty {
                return .unknownHost(host)
            }
            for attempt in connectionError.connectionErrors {
                if let mapped = errnoFailure(attempt.error, host: host, port: port, seconds: seconds) {
                    return mapped
                }
            }
            let reasons = connectionError.connectionErrors.map { "\($0.error)" }.joined(separator: "; ")
            return .connectFailed(host: host, port: port, reason: reasons)
        }
        if let mapped = errnoFailure(error, host: host, port: port, seconds: seconds) { return mapped }
        return .connectFailed(host: host, port: port, reason: "\(error)")
    }

    private static func errnoFailure(_ error: any Error, host: String, port: Int, seconds: Double)
        -> SignallingLinkError?
    {
        if let channelError = error as? ChannelError, case .connectTimeout = channelError {
            return .connectTimedOut(host: host, port: port, seconds: seconds)
        }
        guard let ioError = error as? IOError else { return nil }
        switch ioError.errnoCode {
        case ECONNREFUSED: return .connectionRefused(host: host, port: port)
        case ENETUNREACH, EHOSTUNREACH:
            return .unreachable(host: host, port: port, reason: String(cString: strerror(ioError.errnoCode)))
        case ETIMEDOUT: return .connectTimedOut(host: host, port: port, seconds: seconds)
        default: return nil
        }
    }
}
