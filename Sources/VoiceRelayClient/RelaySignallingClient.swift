import NIOConcurrencyHelpers
import NIOCore
import VoiceRelayShared
import VoiceWire

/// A match's signalling through the relay, for a participant with no other channel to the others:
/// a TCP connection of its own (media keeps using `RelayClient`), joined with the same token.
///
/// The client reports the other members and what they send, keeps the connection alive, and when
/// it is lost reconnects and joins again on its own, reporting who joined or left meanwhile.
/// `send` is reliable and in order per destination while both ends are attached; a signal waits
/// (up to `RelaySignallingTiming.holdTime`, in a bounded queue) while this client is not joined or
/// its destination is not present, and is sent once both are. What was written to a connection
/// that then broke is lost: TCP gives no receipt.
///
/// Thread contract: all protocol state lives on one event loop (`RelaySignallingClientCore`); the public
/// methods may be called from any thread and hop onto it. `onEvent` runs on that loop, in order:
/// hand long work off rather than block there.
public final class RelaySignallingClient: Sendable {
    private let eventLoops: EventLoopGroupOwnership
    private let loop: any EventLoop
    private let core: NIOLoopBoundBox<RelaySignallingClientCore>
    private let published: NIOLockedValueBox<RelaySignallingClientCore.Published>
    private let tick: NIOLockedValueBox<RepeatedTask?>

    /// Starts connecting to the relay and joining `token`'s match as `participant`; returns at once
    /// (`.joined(members:)` follows, or `.refused`).
    public static func connect(
        host: String, port: Int, otherRelays: [String] = [], token: String, participant: String,
        eventLoopGroup: (any EventLoopGroup)? = nil, timing: RelaySignallingTiming = RelaySignallingTiming(),
        onEvent: @escaping @Sendable (RelaySignallingEvent) -> Void
    ) async throws(RelayClientError) -> RelaySignallingClient {
        let relays = try RelayClientError.resolving(host, port: port, others: otherRelays)
        do {
            _ = try RelayMessage.signalJoin(token: token, participant: participant).serialized()
        } catch {
            throw .invalidJoin(error)
        }
        let client = RelaySignallingClient(
            relays: relays, token: token, participant: participant, timing: timing,
            eventLoopGroup: eventLoopGroup, onEvent: onEvent)
        client.begin()
        return client
    }

    private init(
        relays: [SocketAddress], token: String, participant: String, timing: RelaySignallingTiming,
        eventLoopGroup: (any EventLoopGroup)?, onEvent: @escaping @Sendable (RelaySignallingEvent) -> Void
    ) {
        eventLoops = EventLoopGroupOwnership(eventLoopGroup)
        loop = eventLoops.loop
        let published = NIOLockedValueBox(RelaySignallingClientCore.Published())
        self.published = published
        tick = NIOLockedValueBox(nil)
        core = NIOLoopBoundBox.makeBoxSendingValue(
            RelaySignallingClientCore(
                relays: relays, token: token, participant: participant, timing: timing, loop: loop,
                onEvent: onEvent, publish: { update in published.withLockedValue { update(&$0) } }),
            eventLoop: loop)
    }

    private func begin() {
        let core = self.core
        let task = loop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(50)) { _ in
            core.value.tick(now: NIODeadline.now().uptimeNanoseconds)
        }
        tick.withLockedValue { $0 = task }
    }

    public var state: RelaySignallingState { published.withLockedValue { $0.state } }

    /// The other members currently present, sorted (a member that dropped out stays listed for
    /// `leaveGrace`, in case it returns).
    public var members: [String] { published.withLockedValue { $0.members } }

    /// Signals dropped without being sent: held past `holdTime`, pushed out of the full queue, or
    /// left over at `close()`.
    public var droppedSignals: Int { published.withLockedValue { $0.droppedSignals } }

    /// Sends `payload` to `participant`'s signalling connection, reliably and in order; it waits
    /// while this client is not joined or the participant is not present. Returns false (and sends
    /// nothing) when the payload exceeds `RelayMessage.maximumSignalBytes`, the participant ID is
    /// empty or too long, or the client has stopped.
    @discardableResult
    public func send(_ payload: [UInt8], to participant: String) -> Bool {
        guard payload.count <= RelayMessage.maximumSignalBytes,
            RelayMessage.isValidText(participant, maximum: RelayToken.maximumIDBytes)
        else { return false }
        switch state {
        case .refused, .kicked, .closed: return false
        case .joining, .joined, .lost: break
        }
        let core = self.core
        loop.execute { core.value.enqueue(payload, to: participant) }
        return true
    }

    /// Leaves the match's signalling and closes the connection.
    public func close() async {
        tick.withLockedValue { $0?.cancel() }
        let core = self.core
        try? await loop.flatSubmit { core.value.close() }.get()
        await eventLoops.shutdownIfOwned()
    }
}
