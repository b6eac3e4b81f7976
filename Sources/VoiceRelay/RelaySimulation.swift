import Logging
import NIOCore
import VoiceCore
import VoiceWire

/// The relay's state machine with no sockets and no clock of its own, for benchmarks that count
/// what it decides to forward. Each message goes in as the bytes `voicechat relay` would receive,
/// from its member's UDP address; each copy it forwards comes back as the member it is for.
@_spi(Simulation)
public final class RelaySimulation {
    private let state: RelayState
    private let secret = RelaySecret.random()
    private var addresses: [String: SocketAddress] = [:]
    /// The first member's port; the others follow in the order they joined.
    private static let firstPort = 10_000
    private var counter: UInt64 = 0

    public init(limits: RelayLimits = RelayLimits()) {
        var configuration = RelayConfiguration(secret: secret)
        configuration.limits = limits
        state = RelayState(
            configuration: configuration,
            logger: Logger(label: "voicechat.relay.simulation", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// What the relay counted so far.
    public var counters: RelayCounters { state.counters }

    /// Joins `participant` to `match` over UDP with a token signed by the relay's secret, and
    /// returns the relay's answer (`.joined` or `.refused`).
    @discardableResult
    public func join(_ participant: String, match: String, channels: [ChannelNumber], now: UInt64) throws
        -> RelayMessage?
    {
        let port = Self.firstPort + addresses.count
        precondition(port <= Int(UInt16.max), "a simulation has room for 55 535 members")
        // An address of its own each, as players have: the relay limits joins per address.
        let host = "10.\(addresses.count >> 16 & 0xFF).\(addresses.count >> 8 & 0xFF).\(addresses.count & 0xFF)"
        let address = try SocketAddress(ipAddress: host, port: port)
        addresses[participant] = address
        let token = try RelayToken.sign(
            match: match, participant: participant, expiry: state.configuration.unixTime() + 86_400, secret: secret
        ).text
        let join = RelayMessage.join(RelayJoin(token: token, participant: participant, channels: channels, muted: []))
        state.received(ByteBuffer(bytes: try join.serialized()), from: .udp(address), now: now)
        let answer = state.actions.lazy.compactMap { action -> RelayMessage? in
            guard case .datagram(let buffer, _) = action else { return nil }
            return try? RelayMessage(parsing: Array(buffer.readableBytesView))
        }.first
        clear()
        return answer
    }

    /// Hands the relay a control message from `participant`.
    public func send(_ message: RelayMessage, from participant: String, now: UInt64) throws {
        guard let address = addresses[participant] else { return }
        state.received(ByteBuffer(bytes: try message.serialized()), from: .udp(address), now: now)
        clear()
    }

    /// Hands the relay one voice envelope `participant` sends everyone on `channel`, and calls
    /// `recipient` with the number of each member it forwards a copy to (0 for the first to
    /// join); returns how many copies it forwards.
    @discardableResult
    public func sendVoice(
        from participant: String, channel: ChannelNumber, now: UInt64, recipient: ((Int) -> Void)? = nil
    ) -> Int {
        guard let address = addresses[participant] else { return 0 }
        counter &+= 1
        var bytes = [UInt8](repeating: 0xAB, count: SealedEnvelopeHeader.envelopeBytes(plaintextBytes: 80))
        let header = SealedEnvelopeHeader(
            content: .voice, channel: channel, sender: ParticipantID(participant).mediaID,
            destination: SealedEnvelopeHeader.everyone, epoch: 0, counter: counter)
        bytes.withUnsafeMutableBytes { try? header.write(into: $0) }
        state.received(ByteBuffer(bytes: bytes), from: .udp(address), now: now)
        let copies = state.forwardDestinations.count
        if let recipient {
            for destination in state.forwardDestinations { recipient(destination.port - Self.firstPort) }
        }
        clear()
        return copies
    }

    private func clear() {
        state.actions.removeAll(keepingCapacity: true)
        state.forwardDestinations.removeAll(keepingCapacity: true)
    }
}
