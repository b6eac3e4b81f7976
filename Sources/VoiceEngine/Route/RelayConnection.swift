import VoiceCore
import VoiceTransport
import VoiceWire

/// A match's connections to its relay, as the engine drives them. The engine holds no socket:
/// VoiceIO's `RelayLink` joins over UDP and TCP with NIO; a test may stand in for it.
///
/// Thread contract: every method may be called from any thread, but the engine never calls one
/// under its lock (it hands the work over through its outbox). What the relay says goes back into
/// the engine through `VoiceEngine.receiveDatagram(_:route:)`, `relayEvent` and `relayFailed`.
public protocol RelayConnection: AnyObject, Sendable {
    var options: RelayOptions { get }
    /// The relay routes this connection opens, in order of preference.
    var transports: [RealTimePathKind] { get }
    /// Starts connecting every transport; returns at once.
    func start(engine: VoiceEngine)
    /// Sends one envelope through the transport of `kind`; dropped while it is not joined.
    func send(_ datagram: [UInt8], via kind: RealTimePathKind)
    /// What the relay should forward to this player: voice of `channels` only, none from `muted`,
    /// and on the channels of `hearingRanges` only from players within range; `channelNames`
    /// names them for the relay's logs and admin.
    func update(
        channels: Set<ChannelNumber>, muted: Set<MediaID>, hearingRanges: [ChannelNumber: Float],
        channelNames: [ChannelNumber: String])
    /// Where this player stands, for every transport now and for those that connect later.
    func setPosition(_ position: VoicePosition)
    /// A fresh token, for the joins that follow.
    func updateToken(_ token: String)
    /// Leaves the match on every transport and closes the connections.
    func close() async
}

/// Makes the relay connection of each match an engine joins with a relay: what an engine is given
/// to reach relays at all (VoiceIO's `RelayLinks`).
public protocol RelayConnector: Sendable {
    func connection(
        options: RelayOptions, participant: ParticipantID, matchID: String, forcedPath: RealTimePathKind?
    ) -> any RelayConnection
}
