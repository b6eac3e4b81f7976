import NIOConcurrencyHelpers
import NIOCore
import VoiceCore
import VoiceRelayShared
import VoiceTransport
import VoiceWire

/// The engine's side of a relay: joins one match over UDP or TCP, sends and receives envelopes,
/// keeps the membership alive, notices a dead relay within `livenessTimeout` and joins again on its
/// own (after a relay restart, or once a TCP connection can be made again).
///
/// Thread contract: all protocol state lives on one event loop (`RelayClientCore`); the public methods
/// may be called from any thread and hop onto it. `onDatagram` and `onEvent` run on that loop:
/// hand the work off rather than block there.
public final class RelayClient: Sendable {
    private let eventLoops: EventLoopGroupOwnership
    private let loop: any EventLoop
    private let core: NIOLoopBoundBox<RelayClientCore>
    private let publishedState: NIOLockedValueBox<RelayClientState>
    private let tick: NIOLockedValueBox<RepeatedTask?>

    /// Starts joining; returns at once (watch `state` or `onEvent` for `.joined`).
    public static func connect(
        _ configuration: RelayClientConfiguration, eventLoopGroup: (any EventLoopGroup)? = nil,
        onDatagram: @escaping @Sendable ([UInt8]) -> Void,
        onEvent: @escaping @Sendable (RelayClientEvent) -> Void = { _ in }
    ) async throws(RelayClientError) -> RelayClient {
        let relays = try RelayClientError.resolving(
            configuration.host, port: configuration.port, others: configuration.otherRelays)
        do {
            _ = try RelayMessage.join(
                RelayJoin(
                    token: configuration.token, participant: configuration.participant,
                    channels: configuration.channels, muted: configuration.muted)
            ).serialized()
        } catch {
            throw .invalidJoin(error)
        }
        let client = RelayClient(
            configuration: configuration, relays: relays, eventLoopGroup: eventLoopGroup,
            onDatagram: onDatagram, onEvent: onEvent)
        try await client.begin()
        return client
    }

    private init(
        configuration: RelayClientConfiguration, relays: [SocketAddress], eventLoopGroup: (any EventLoopGroup)?,
        onDatagram: @escaping @Sendable ([UInt8]) -> Void, onEvent: @escaping @Sendable (RelayClientEvent) -> Void
    ) {
        eventLoops = EventLoopGroupOwnership(eventLoopGroup)
        loop = eventLoops.loop
        let publishedState = NIOLockedValueBox(RelayClientState.joining)
        self.publishedState = publishedState
        tick = NIOLockedValueBox(nil)
        core = NIOLoopBoundBox.makeBoxSendingValue(
            RelayClientCore(
                configuration: configuration, relays: relays, loop: loop, onDatagram: onDatagram,
                onEvent: { event in onEvent(event) },
                publishState: { state in publishedState.withLockedValue { $0 = state } }),
            eventLoop: loop)
    }

    private func begin() async throws(RelayClientError) {
        let core = self.core
        do {
            try await loop.flatSubmit { core.value.open() }.get()
        } catch let error as RelayClientError {
            throw error
        } catch {
            throw .bindFailed(reason: "\(error)")
        }
        let period = TimeAmount.milliseconds(50)
        let task = loop.scheduleRepeatedTask(initialDelay: .zero, delay: period) { _ in
            core.value.tick(now: NIODeadline.now().uptimeNanoseconds)
        }
        tick.withLockedValue { $0 = task }
    }

    public var state: RelayClientState { publishedState.withLockedValue { $0 } }

    /// Sends one envelope to the relay; dropped (returns false) while not joined.
    @discardableResult
    public func send(_ datagram: [UInt8]) -> Bool {
        guard state.isJoined else { return false }
        let core = self.core
        loop.execute { core.value.sendDatagram(datagram) }
        return true
    }

    public func startChannel(_ channel: ChannelNumber) { control { $0.startChannel(channel) } }
    public func stopChannel(_ channel: ChannelNumber) { control { $0.stopChannel(channel) } }
    public func mute(_ mediaID: MediaID) { control { $0.mute(mediaID) } }
    public func unmute(_ mediaID: MediaID) { control { $0.unmute(mediaID) } }
    /// Hears `channel` positionally within `range` (0: the whole channel again), now and after every join.
    /// Gives the relay `channel`'s name, for its logs and admin.
    public func nameChannel(_ channel: ChannelNumber, _ name: String) { control { $0.nameChannel(channel, name) } }

    public func setHearingRange(_ range: Float, on channel: ChannelNumber) {
        control { $0.setHearingRange(range, on: channel) }
    }
    /// Tells the relay where the player stands (finite coordinates), now and again every
    /// `positionRepeatInterval` and after every join.
    public func setPosition(_ position: VoicePosition) { control { $0.setPosition(position) } }

    /// A fresh token (e.g. after `.refused(.expired)`); the client joins again with it.
    public func updateToken(_ token: String) { control { $0.updateToken(token) } }

    private func control(_ body: @escaping @Sendable (RelayClientCore) -> Void) {
        let core = self.core
        loop.execute { body(core.value) }
    }

    /// Leaves the match and closes the connection.
    public func close() async {
        tick.withLockedValue { $0?.cancel() }
        let core = self.core
        try? await loop.flatSubmit { core.value.close() }.get()
        await eventLoops.shutdownIfOwned()
    }
}
