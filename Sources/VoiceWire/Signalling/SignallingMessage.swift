import Foundation
import VoiceCore

/// Why a call ended or never started, as the peer is told.
public enum CallEndReason: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The participant who sent it stopped the call (or withdrew the invitation).
    case hungUp = "hung-up"
    /// The invited participant said no.
    case denied
    /// Nobody answered the invitation in time.
    case timedOut = "timed-out"
    /// No real-time path between the two could be found.
    case noRealTimePath = "no-path"
    /// The peer has been unreachable for longer than the engine waits.
    case connectionLost = "connection-lost"
    /// The peer's engine shut down.
    case shutDown = "shut-down"

    public var description: String {
        switch self {
        case .hungUp: "the other participant hung up"
        case .denied: "the invitation was denied"
        case .timedOut: "the invitation was not answered in time"
        case .noRealTimePath: "no real-time path could be found"
        case .connectionLost: "the connection was lost"
        case .shutDown: "the engine shut down"
        }
    }
}

/// A session is a 1:1 call or a match: the scope of keys, paths and channels.
package enum SessionReference: Sendable, Hashable, CustomStringConvertible {
    case call(String)
    case match(String)

    package var description: String {
        switch self {
        case .call(let id): "call \(id)"
        case .match(let id): "match \"\(id)\""
        }
    }
}

/// The part of an offer or answer that sets up keys and paths.
package struct SessionOffer: Sendable, Hashable {
    /// This participant's X25519 public key for the session.
    package var publicKey: [UInt8]
    /// Where this participant's engine can be reached directly.
    package var candidates: [PeerAddress]
    /// Whether this participant's app carries real-time data itself.
    package var offersRealTime: Bool

    package init(publicKey: [UInt8], candidates: [PeerAddress], offersRealTime: Bool) {
        self.publicKey = publicKey
        self.candidates = candidates
        self.offersRealTime = offersRealTime
    }
}

/// Every signalling message the engine sends through the app's reliable channel.
///
/// The encoding is a JSON object with a version and a type, so a message is readable in the
/// app's logs and any field an older build does not know is ignored. Decoding is strict about
/// everything it uses: sizes, counts, lengths and formats are checked before anything is trusted.
package enum SignallingMessage: Sendable, Hashable {
    /// Calling: someone would like a 1:1 voice chat.
    case invite(call: String, offer: SessionOffer)
    /// The invitation is accepted; the answer carries the accepter's keys for the caller.
    case accept(call: String, offer: SessionOffer, keys: [WrappedSenderKey])
    /// The invitation is refused or withdrawn, or the call stops.
    case end(call: String, reason: CallEndReason)
    /// A sender's keys (first delivery or a new epoch) for the receiver of this message.
    case keys(SessionReference, [WrappedSenderKey])
    /// The receiver installed these epochs: the sender may switch to them.
    case keysInstalled(SessionReference, [WrappedSenderKey])
    /// Joining a match: keys and paths, and the channels this player has started.
    case hello(match: String, offer: SessionOffer, channels: [ChannelAnnouncement])
    /// A player started or stopped one of its channels.
    case channel(match: String, ChannelAnnouncement)
    /// A player leaves the match.
    case bye(match: String)
    /// The game's own reliable data.
    case gameData(match: String, [UInt8])

    package static let version = 1
    /// Reliable game data is limited to 87 KB, as GKMatch's is; base64 and the envelope fit below this.
    package static let maximumBytes = 160 * 1024
    package static let maximumGameDataBytes = 87 * 1024
    package static let maximumIdentifierBytes = 256
    package static let maximumCandidates = 16
    package static let maximumKeys = 64

    package var typeName: String {
        switch self {
        case .invite: "invite"
        case .accept: "accept"
        case .end: "end"
        case .keys: "keys"
        case .keysInstalled: "keys-installed"
        case .hello: "hello"
        case .channel: "channel"
        case .bye: "bye"
        case .gameData: "game-data"
        }
    }
}
