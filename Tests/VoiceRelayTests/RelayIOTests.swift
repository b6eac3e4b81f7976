import Logging
import NIOCore
import NIOEmbedded
import Testing
import VoiceCore
import VoiceRelayClient
import VoiceWire

@testable import VoiceRelay

/// `RelayIO` carries out each action once, also when carrying one out (a close) comes back into it.
@Suite struct RelayIOTests {
    let secret = RelaySecret.random()

    private func joinFrame(_ participant: String) throws -> ByteBuffer {
        let token = try RelayToken.sign(match: "m", participant: participant, expiry: 2_000_000, secret: secret).text
        let join = RelayMessage.join(RelayJoin(token: token, participant: participant, channels: [1], muted: []))
        return ByteBuffer(bytes: try join.serialized())
    }

    private func sent(on channel: EmbeddedChannel) throws -> [RelayMessage] {
        var messages: [RelayMessage] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            messages.append(try RelayMessage(parsing: Array(buffer.readableBytesView)))
        }
        return messages
    }

    @Test func aReplacedConnectionIsClosedAndTheNewOneHearsItsJoinOnce() throws {
        var configuration = RelayConfiguration(secret: secret)
        configuration.unixTime = { 1_000_000 }
        let io = RelayIO(
            state: RelayState(configuration: configuration, logger: Logger(label: "relay-io-test")),
            loop: EmbeddedEventLoop())
        let old = EmbeddedChannel(handler: RelayTCPHandler(io: io))
        let new = EmbeddedChannel(handler: RelayTCPHandler(io: io))
        try old.connect(to: SocketAddress(ipAddress: "10.0.0.1", port: 1)).wait()
        try new.connect(to: SocketAddress(ipAddress: "10.0.0.1", port: 2)).wait()

        try old.writeInbound(try joinFrame("bob"))
        #expect(try sent(on: old) == [.joined(mediaID: ParticipantID("bob").mediaID), .serverMute(false)])

        // The join from the newer connection closes the old one, whose handler then reports it
        // closed to the relay while the join's actions are still being carried out.
        try new.writeInbound(try joinFrame("bob"))
        #expect(try sent(on: old) == [.kicked(.replaced)])
        #expect(!old.isActive)
        #expect(try sent(on: new) == [.joined(mediaID: ParticipantID("bob").mediaID), .serverMute(false)])
        #expect(io.state.participantCount == 1)
        _ = try new.finish()
    }
}
