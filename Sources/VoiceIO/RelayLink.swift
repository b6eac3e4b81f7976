import NIOPosix
import Synchronization
import VoiceCore
import VoiceEngine
import VoiceRelayClient
import VoiceTransport
import VoiceWire

/// The relay connections of one match: a `RelayClient` over UDP and one over TCP (each only if
/// allowed), both joined with the match's token, so the TCP one stands by, joined, while UDP works.
///
/// Thread contract: every method may be called from any thread, but never under the engine's lock
/// (the engine hands work to it through its outbox). The clients' callbacks run on a NIO event loop
/// and go into the engine (datagrams, joins and losses), taking the engine's lock there briefly.
/// The link keeps what the relay must know (started channels, muted players) and brings every
/// client up to date with it, including a client whose connection completes later.
public final class RelayLink: RelayConnection {
    public let options: RelayOptions
    /// The relay routes this link opens, in order of preference.
    public let transports: [RealTimePathKind]
    private let participant: ParticipantID
    private let matchID: String
    private let state: Mutex<LinkState>

    private struct LinkState {
        var clients: [RealTimePathKind: ConnectedClient] = [:]
        var channels: Set<ChannelNumber> = []
        var muted: Set<MediaID> = []
        var hearingRanges: [ChannelNumber: Float] = [:]
        var channelNames: [ChannelNumber: String] = [:]
        var position: VoicePosition?
        var token: String
        var connecting: [Task<Void, Never>] = []
        var isClosed = false
    }

    /// A client and the channels, mutes and ranges the relay already has from it.
    private struct ConnectedClient {
        let client: RelayClient
        var channels: Set<ChannelNumber>
        var muted: Set<MediaID>
        var hearingRanges: [ChannelNumber: Float]
        var channelNames: [ChannelNumber: String]

        mutating func update(
            channels wanted: Set<ChannelNumber>, muted wantedMutes: Set<MediaID>,
            hearingRanges wantedRanges: [ChannelNumber: Float],
            channelNames wantedNames: [ChannelNumber: String]
        ) {
            for (channel, name) in wantedNames.sorted(by: { $0.key < $1.key }) where channelNames[channel] != name {
                client.nameChannel(channel, name)
            }
            channelNames.merge(wantedNames) { _, new in new }
            for channel in wanted.subtracting(channels).sorted() { client.startChannel(channel) }
            for channel in channels.subtracting(wanted).sorted() { client.stopChannel(channel) }
            for id in wantedMutes.subtracting(muted).sorted() { client.mute(id) }
            for id in muted.subtracting(wantedMutes).sorted() { client.unmute(id) }
            for (channel, range) in wantedRanges.sorted(by: { $0.key < $1.key }) where hearingRanges[channel] != range {
                client.setHearingRange(range, on: channel)
            }
            for channel in hearingRanges.keys.sorted() where wantedRanges[channel] == nil {
                client.setHearingRange(0, on: channel)
            }
            channels = wanted
            muted = wantedMutes
            hearingRanges = wantedRanges
        }
    }

    init(options: RelayOptions, participant: ParticipantID, matchID: String, forcedPath: RealTimePathKind?) {
        self.options = options
        self.participant = participant
        self.matchID = matchID
        state = Mutex(LinkState(token: options.token))
        var transports: [RealTimePathKind] = []
        if options.allowsUDP && (forcedPath == nil || forcedPath == .relayUDP) { transports.append(.relayUDP) }
        if options.allowsTCP && (forcedPath == nil || forcedPath == .relayTCP) { transports.append(.relayTCP) }
        self.transports = transports
    }

    /// Starts connecting every transport; returns at once. Joins, losses and refusals reach the
    /// engine as they happen.
    public func start(engine: VoiceEngine) {
        state.withLock { state in
            guard !state.isClosed else { return }
            for kind in transports {
                state.connecting.append(Task { [self, weak engine] in await connect(kind, engine: engine) })
            }
        }
    }

    private func connect(_ kind: RealTimePathKind, engine: VoiceEngine?) async {
        let (channels, muted, ranges, names, token) = state.withLock {
            ($0.channels, $0.muted, $0.hearingRanges, $0.channelNames, $0.token)
        }
        var configuration = RelayClientConfiguration(
            host: options.host, port: kind == .relayTCP ? options.tcpPort ?? options.port : options.port,
            transport: kind == .relayTCP ? .tcp : .udp, token: token, participant: participant.rawValue,
            channels: channels.sorted(), muted: muted.sorted())
        configuration.hearingRanges = ranges
        configuration.channelNames = names
        configuration.otherRelays = options.otherRelays
        let route: PathRoute = kind == .relayTCP ? .relayTCP : .relayUDP
        let matchID = self.matchID
        let client: RelayClient
        do {
            client = try await RelayClient.connect(
                configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
                onDatagram: { [weak engine] datagram in engine?.receiveDatagram(datagram, route: route) },
                onEvent: { [weak engine] event in engine?.relayEvent(event, on: kind, match: matchID) })
        } catch {
            engine?.relayFailed(.unreachable(error.description), on: kind, match: matchID)
            return
        }
        let isClosed = state.withLock { state -> Bool in
            guard !state.isClosed else { return true }
            var connected = ConnectedClient(
                client: client, channels: Set(channels), muted: Set(muted), hearingRanges: ranges, channelNames: names)
            connected.update(
                channels: state.channels, muted: state.muted, hearingRanges: state.hearingRanges,
                channelNames: state.channelNames)
            if let position = state.position { client.setPosition(position) }
            state.clients[kind] = connected
            return false
        }
        if isClosed { await client.close() }
    }

    /// Sends one envelope through the client of `kind`; dropped while it is not joined.
    public func send(_ datagram: [UInt8], via kind: RealTimePathKind) {
        state.withLock { $0.clients[kind]?.client }?.send(datagram)
    }

    /// What the relay should forward to this player: voice of `channels` only, none from `muted`,
    /// and on the channels of `hearingRanges` only from players within range.
    public func update(
        channels: Set<ChannelNumber>, muted: Set<MediaID>, hearingRanges: [ChannelNumber: Float],
        channelNames: [ChannelNumber: String]
    ) {
        state.withLock { state in
            state.channels = channels
            state.muted = muted
            state.hearingRanges = hearingRanges
            state.channelNames.merge(channelNames) { _, new in new }
            let names = state.channelNames
            for kind in Array(state.clients.keys) {
                state.clients[kind]?.update(
                    channels: channels, muted: muted, hearingRanges: hearingRanges, channelNames: names)
            }
        }
    }

    /// Where this player stands, for every client now and for those that connect later.
    public func setPosition(_ position: VoicePosition) {
        let clients = state.withLock { state in
            state.position = position
            return state.clients.values.map(\.client)
        }
        for client in clients { client.setPosition(position) }
    }

    /// A fresh token, for the joins that follow (after a refusal as expired, for instance).
    public func updateToken(_ token: String) {
        let clients = state.withLock { state in
            state.token = token
            return state.clients.values.map(\.client)
        }
        for client in clients { client.updateToken(token) }
    }

    /// Leaves the match on every transport and closes the connections; waits for connections
    /// still being made, and closes those too.
    public func close() async {
        let (clients, connecting) = state.withLock { state in
            state.isClosed = true
            defer {
                state.clients = [:]
                state.connecting = []
            }
            return (state.clients.values.map(\.client), state.connecting)
        }
        for client in clients { await client.close() }
        for task in connecting { await task.value }
    }
}
