import VoiceTransport

/// Where the engine's datagrams go when they leave by a direct path.
public protocol DatagramNetwork: AnyObject, Sendable {
    /// Sends one datagram; never blocks; drops (and counts) what cannot be sent.
    func send(_ datagram: [UInt8], to address: PeerAddress)
    /// The addresses at which this network receives, to offer to peers as candidates.
    var localCandidates: [PeerAddress] { get }
}

/// What the engine core decided to send while it held its lock; sent after the lock is released,
/// so that an app's client (which may call straight back into an engine) never runs under it.
enum OutgoingItem {
    case signalling([UInt8], to: ParticipantID, client: any VoiceChatClient)
    case realTime([UInt8], to: ParticipantID, client: any VoiceChatClient)
    case datagram([UInt8], to: PeerAddress)
    /// An envelope for the relay, through its UDP or TCP client.
    case relayDatagram([UInt8], via: RealTimePathKind, link: RelayLink)
    /// What the relay should forward to this participant: its started channels and muted players.
    case relayInterest(channels: Set<UInt16>, muted: Set<UInt32>, link: RelayLink)
    case callEvent(VoiceChatEvent, EventSink<VoiceChatEvent>)
    case matchEvent(MatchEvent, EventSink<MatchEvent>)
}

struct EngineOutbox {
    private(set) var items: [OutgoingItem] = []

    mutating func append(_ item: OutgoingItem) { items.append(item) }

    /// Hands over what was queued. Every turn of the engine's lock ends with this, most with
    /// nothing queued: that case must not allocate.
    mutating func take() -> [OutgoingItem] {
        guard !items.isEmpty else { return [] }
        defer { items = [] }
        return items
    }
}
