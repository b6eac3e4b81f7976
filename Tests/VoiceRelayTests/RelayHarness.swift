import Logging
import NIOConcurrencyHelpers
import NIOPosix
import Testing
import VoiceCore
import VoiceRelay
import VoiceRelayClient
import VoiceTransport
import VoiceWire

/// A relay on 127.0.0.1 and clients that record what they hear, for the forwarding tests.
struct RelayHarness {
    static let match = "match-1"
    let secret = RelaySecret.random()

    func configuration(port: Int = 0, limits: RelayLimits = RelayLimits()) -> RelayConfiguration {
        var configuration = RelayConfiguration(host: "127.0.0.1", port: port, secret: secret)
        configuration.limits = limits
        return configuration
    }

    func startRelay(port: Int = 0, limits: RelayLimits = RelayLimits()) async throws -> RelayServer {
        var logger = Logger(label: "voicechat.relay.test")
        logger.logLevel = .warning
        let relay = RelayServer(configuration: configuration(port: port, limits: limits), logger: logger)
        try await relay.start()
        return relay
    }

    func token(_ participant: String, match: String = RelayHarness.match, expiresIn seconds: Int64 = 3600) throws
        -> String
    {
        let now = Int64(RelayConfiguration(secret: secret).unixTime())
        return try RelayToken.sign(
            match: match, participant: participant, expiry: UInt64(max(0, now + seconds)), secret: secret
        ).text
    }

    func join(
        _ participant: String, relay: RelayServer, transport: RelayTransport = .udp, channels: [ChannelNumber] = [1],
        muted: [String] = [], token: String? = nil
    ) async throws -> TestPeer {
        let configuration = RelayClientConfiguration(
            host: "127.0.0.1", port: relay.localPort ?? 0, transport: transport,
            token: try token ?? self.token(participant), participant: participant, channels: channels,
            muted: muted.map { ParticipantID($0).mediaID })
        return try await TestPeer(participant: participant, configuration: configuration)
    }

    /// Leaves and stops every client, so no client keeps running into the next test.
    func close(_ peers: TestPeer...) async {
        for peer in peers { await peer.client.close() }
    }
}

/// One client and everything it heard.
final class TestPeer: Sendable {
    let participant: String
    let mediaID: MediaID
    let client: RelayClient
    private let heard: NIOLockedValueBox<[[UInt8]]>
    private let events: NIOLockedValueBox<[RelayClientEvent]>
    private let counter = NIOLockedValueBox<UInt64>(0)

    init(participant: String, configuration: RelayClientConfiguration) async throws {
        self.participant = participant
        mediaID = ParticipantID(participant).mediaID
        let heard = NIOLockedValueBox<[[UInt8]]>([])
        let events = NIOLockedValueBox<[RelayClientEvent]>([])
        self.heard = heard
        self.events = events
        client = try await RelayClient.connect(
            configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            onDatagram: { datagram in heard.withLockedValue { $0.append(datagram) } },
            onEvent: { event in events.withLockedValue { $0.append(event) } })
    }

    /// What this peer heard, but the markers of `barrier(to:)`.
    var heardEnvelopes: [SealedEnvelopeHeader] { allHeard.filter { !Self.isMarker($0) } }

    private var allHeard: [SealedEnvelopeHeader] {
        heard.withLockedValue { $0 }.compactMap { datagram in
            datagram.withUnsafeBytes { try? SealedEnvelopeHeader(parsing: $0) }
        }
    }

    /// A marker is a probe reply on channel 0: no test sends one otherwise, and it is not voice, so
    /// no mute holds it back.
    private static func isMarker(_ header: SealedEnvelopeHeader) -> Bool {
        header.content == .probeReply && header.channel == 0
    }

    /// Sends `recipient` a marker addressed to it alone and waits until it arrives. The relay handles
    /// one sender's datagrams in order, loopback keeps them in order, and a client reads its socket
    /// in order: once the marker is in, everything this peer sent `recipient` before it is in too,
    /// so what has not arrived by then never will.
    func barrier(to recipient: TestPeer) async throws {
        let marker = sayMarker(to: recipient.mediaID)
        try await eventually("\(recipient.participant) gets \(participant)'s marker") {
            recipient.allHeard.contains { Self.isMarker($0) && $0.sender == self.mediaID && $0.counter == marker }
        }
    }

    /// Sends a marker to `destination` and returns its counter.
    @discardableResult
    func sayMarker(to destination: MediaID) -> UInt64 {
        say(channel: 0, destination: destination, content: .probeReply)
        return counter.withLockedValue { $0 }
    }

    /// Senders of the envelopes heard so far.
    var heardFrom: Set<MediaID> { Set(heardEnvelopes.map(\.sender)) }
    var receivedEvents: [RelayClientEvent] { events.withLockedValue { $0 } }

    func forget() { heard.withLockedValue { $0 = [] } }

    /// Sends a fake sealed envelope (the relay never opens it).
    @discardableResult
    func say(
        channel: ChannelNumber = 1, destination: MediaID = 0, content: SealedContent = .voice, sender: MediaID? = nil
    ) -> Bool {
        let count = counter.withLockedValue { value -> UInt64 in
            value += 1
            return value
        }
        var bytes = [UInt8](repeating: 0xAB, count: SealedEnvelopeHeader.envelopeBytes(plaintextBytes: 40))
        let header = SealedEnvelopeHeader(
            content: content, channel: channel, sender: sender ?? mediaID, destination: destination, epoch: 0,
            counter: count)
        bytes.withUnsafeMutableBytes { try? header.write(into: $0) }
        return client.send(bytes)
    }

    func waitUntilJoined() async throws {
        try await eventually("\(participant) joins") { self.client.state.isJoined }
    }
}

/// Polls `condition` every 20 ms for up to `seconds`; records an issue naming `what` if it never holds.
func eventually(_ what: String, within seconds: Double = 10, _ condition: @Sendable () async throws -> Bool)
    async throws
{
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting until \(what)")
    throw CancellationError()
}
