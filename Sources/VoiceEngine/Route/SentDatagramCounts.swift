import VoiceTransport

/// Datagrams sent per path kind, in fixed storage: a dictionary that the engine thread bumps would
/// be copied (allocated) there whenever a reader still held the one it last read.
struct SentDatagramCounts {
    private var counts = (direct: 0, appCarried: 0, relayUDP: 0, relayTCP: 0)

    mutating func count(_ kind: RealTimePathKind) {
        switch kind {
        case .direct: counts.direct += 1
        case .appCarried: counts.appCarried += 1
        case .relayUDP: counts.relayUDP += 1
        case .relayTCP: counts.relayTCP += 1
        }
    }

    /// The counts by the kind's name, for `EngineCounters`; kinds never used are absent.
    var byName: [String: Int] {
        let all: [(RealTimePathKind, Int)] = [
            (.direct, counts.direct), (.appCarried, counts.appCarried), (.relayUDP, counts.relayUDP),
            (.relayTCP, counts.relayTCP),
        ]
        return Dictionary(uniqueKeysWithValues: all.filter { $0.1 > 0 }.map { ($0.0.rawValue, $0.1) })
    }
}
