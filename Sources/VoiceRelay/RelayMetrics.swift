import CoreMetrics

/// The relay's global figures in swift-metrics. The forwarding path only bumps plain integers on
/// the event loop; `publish` turns their growth into metric increments a few times a second, so the
/// metrics backend is never on the per-packet path.
struct RelayMetrics: Sendable {
    private let packetsReceived: Counter
    private let bytesReceived: Counter
    private let packetsForwarded: Counter
    private let bytesForwarded: Counter
    private let signalsForwarded: Counter
    private let signalBytesForwarded: Counter
    private let peerVoiceSent: Counter
    private let peerVoiceReceived: Counter
    private let peerStateSent: Counter
    private let drops: [Counter]
    private let joins: Counter
    private let participants: Gauge
    private let matches: Gauge
    private let currentSenders: Gauge

    init(prefix: String, factory: any MetricsFactory) {
        packetsReceived = Counter(label: prefix + "_packets_received_total", factory: factory)
        bytesReceived = Counter(label: prefix + "_bytes_received_total", factory: factory)
        packetsForwarded = Counter(label: prefix + "_packets_forwarded_total", factory: factory)
        bytesForwarded = Counter(label: prefix + "_bytes_forwarded_total", factory: factory)
        signalsForwarded = Counter(label: prefix + "_signals_forwarded_total", factory: factory)
        signalBytesForwarded = Counter(label: prefix + "_signal_bytes_forwarded_total", factory: factory)
        peerVoiceSent = Counter(label: prefix + "_peer_voice_sent_total", factory: factory)
        peerVoiceReceived = Counter(label: prefix + "_peer_voice_received_total", factory: factory)
        peerStateSent = Counter(label: prefix + "_peer_state_sent_total", factory: factory)
        drops = RelayDropReason.allCases.map {
            Counter(label: prefix + "_drops_total", dimensions: [("reason", $0.description)], factory: factory)
        }
        joins = Counter(label: prefix + "_joins_total", factory: factory)
        participants = Gauge(label: prefix + "_participants", factory: factory)
        matches = Gauge(label: prefix + "_matches", factory: factory)
        currentSenders = Gauge(label: prefix + "_current_senders", factory: factory)
    }

    /// Adds what grew since `published` and records the gauges.
    func publish(
        _ counters: RelayCounters, since published: RelayCounters, joins joinCount: Int, joinsBefore: Int,
        participants participantCount: Int, matches matchCount: Int, currentSenders senders: Int
    ) {
        increment(packetsReceived, counters.packetsReceived - published.packetsReceived)
        increment(bytesReceived, counters.bytesReceived - published.bytesReceived)
        increment(packetsForwarded, counters.packetsForwarded - published.packetsForwarded)
        increment(bytesForwarded, counters.bytesForwarded - published.bytesForwarded)
        increment(signalsForwarded, counters.signalsForwarded - published.signalsForwarded)
        increment(signalBytesForwarded, counters.signalBytesForwarded - published.signalBytesForwarded)
        increment(peerVoiceSent, counters.peerVoiceSent - published.peerVoiceSent)
        increment(peerVoiceReceived, counters.peerVoiceReceived - published.peerVoiceReceived)
        increment(peerStateSent, counters.peerStateSent - published.peerStateSent)
        for reason in RelayDropReason.allCases {
            increment(drops[reason.rawValue], counters.drops[reason.rawValue] - published.drops[reason.rawValue])
        }
        increment(joins, joinCount - joinsBefore)
        participants.record(participantCount)
        matches.record(matchCount)
        currentSenders.record(senders)
    }

    private func increment(_ counter: Counter, _ delta: Int) {
        if delta > 0 { counter.increment(by: delta) }
    }
}
