import VoiceCore
import VoiceTransport
import VoiceWire

/// Where one of the engine's datagrams goes.
enum DatagramDestination {
    case direct(PeerAddress)
    /// Through the app's own real-time channel, to that participant.
    case appCarried(ParticipantID, client: any VoiceChatClient)
    /// An envelope for the relay, through its UDP or TCP client.
    case relay(RealTimePathKind, link: any RelayConnection)
}

/// What the engine core decided to send or tell, other than datagrams: sent by the courier once
/// the turn is over, never by whoever has the engine's state, so that an app's client (which may
/// call straight back into an engine) never runs there.
enum OutgoingItem {
    /// Encoded by the courier, so that JSON is never written on the engine thread.
    case signalling(SignallingMessage, to: ParticipantID, client: any VoiceChatClient)
    /// What the relay should forward to this participant: its started channels, muted players,
    /// and the range it hears each positional channel within.
    case relayInterest(
        channels: Set<ChannelNumber>, muted: Set<MediaID>, hearingRanges: [ChannelNumber: Float],
        channelNames: [ChannelNumber: String],
        link: any RelayConnection)
    /// Where this participant stands, for the relay's positional channels.
    case relayPosition(VoicePosition, link: any RelayConnection)
    case callEvent(VoiceChatEvent, EventSink<VoiceChatEvent>)
    case matchEvent(MatchEvent, EventSink<MatchEvent>)
}

/// What one turn on the engine's state queued for the courier. Datagrams go straight into the
/// courier's preallocated queue; other items are kept here until the turn ends.
struct EngineOutbox {
    let datagrams: DatagramQueue<DatagramDestination>
    private(set) var items: [OutgoingItem] = []
    /// Whether this turn queued anything, for the courier to be told.
    private(set) var hasQueued = false

    init(datagrams: DatagramQueue<DatagramDestination>) {
        self.datagrams = datagrams
        // Events come in small bursts (a speaker starting, a player joining); room for those
        // keeps the engine thread from allocating for them.
        items.reserveCapacity(64)
    }

    mutating func append(_ item: OutgoingItem) {
        items.append(item)
        hasQueued = true
    }

    /// Queues a copy of `datagram`; false when the courier's queue is full.
    mutating func send(_ datagram: UnsafeRawBufferPointer, to destination: DatagramDestination) -> Bool {
        hasQueued = true
        return datagrams.push(datagram, label: destination)
    }

    /// Moves the turn's items to the end of `queue` (without giving up this one's capacity) and
    /// tells whether the turn queued anything.
    mutating func handOver(to queue: inout [OutgoingItem]) -> Bool {
        defer { hasQueued = false }
        guard !items.isEmpty else { return hasQueued }
        queue.append(contentsOf: items)
        items.removeAll(keepingCapacity: true)
        return true
    }
}
