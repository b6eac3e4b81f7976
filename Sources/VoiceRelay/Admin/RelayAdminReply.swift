import VoiceCore
import VoiceWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The reply to one request.
package struct RelayAdminReply: Codable, Sendable, Hashable {
    package struct Match: Codable, Sendable, Hashable {
        package var match: String
        package var players: [String]
    }

    package struct Player: Codable, Sendable, Hashable {
        package var player: String
        package var mediaID: MediaID
        /// Channel numbers, as the wire carries them.
        package var channels: [ChannelNumber]
        /// The same channels by the names the players gave them (`#number` where none did).
        package var channelNames: [String]
        package var serverMuted: Bool
        package var overUDP: Bool
        package var overTCP: Bool
        package var sending: Bool
        package var packetsReceived: Int
        package var packetsForwarded: Int
        /// Where it stands, [x, y, z], if it or the game server said so.
        package var position: [Float]?
        package var placedByServer: Bool
        /// Range by channel number, for the channels it hears positionally.
        package var hearingRanges: [String: Float]
    }

    package struct Statistics: Codable, Sendable, Hashable {
        package var matches: Int
        package var players: Int
        package var sending: Int
        package var joins: Int
        package var refusals: [String: Int]
        package var packetsReceived: Int
        package var packetsForwarded: Int
        /// Voice copies kept from listeners out of range on positional channels.
        package var packetsOutOfRange: Int
        /// Voice envelopes sent to and received from other relays of the cluster, for players of
        /// matches that span them; absent from a relay that predates them.
        package var peerVoiceSent: Int?
        package var peerVoiceReceived: Int?
        package var drops: [String: Int]
    }

    package var id: JSONValue?
    package var ok: Bool
    package var error: String?
    package var matches: [Match]?
    package var players: [Player]?
    package var statistics: Statistics?
    /// The cluster's live nodes, by name.
    package var nodes: [ClusterNodeRecord]?
    /// `drain`: how many matches the relay moves to other nodes before it stops.
    package var movingMatches: Int?
}
