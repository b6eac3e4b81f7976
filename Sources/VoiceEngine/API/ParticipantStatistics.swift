import VoiceCore
import VoiceMedia
import VoiceTransport
import VoiceWire

/// What this engine knows about one remote participant in one call or match: the path to them,
/// and what arrives from them in each channel.
public struct ParticipantStatistics: Sendable, Hashable, Codable {
    /// The call ID or match ID.
    public var session: String
    public var participant: ParticipantID
    /// The path voice takes to them now; nil while none works.
    public var path: RealTimePathKind?
    /// Smoothed round-trip time of the path's probes, in milliseconds.
    public var roundTripMilliseconds: Double?
    /// Their stream in each channel this participant hears them in, by channel name.
    public var streams: [String: StreamStatistics]
}

/// One remote stream's level and receive statistics.
public struct StreamStatistics: Sendable, Hashable, Codable {
    public var levelDBFS: Float
    public var isSpeaking: Bool
    public var receive: ReceiveStatistics
    /// True once the stream ended (the channel stopped on either side, or the player left):
    /// `receive` is then what it had received, and the level is the meter's floor.
    public var hasEnded: Bool
}

/// One row of what the statistics read on the engine's state: a participant (no stream) or one of
/// its streams. Plain values, so that reading them into rows with room allocates nothing where
/// the engine thread reads them; the caller's thread makes the dictionaries.
struct StatisticsRow {
    var session: String
    var participant: ParticipantID
    var path: RealTimePathKind?
    var roundTripMilliseconds: Double?
    var channel: String?
    var stream: StreamStatistics?
}

extension EngineCore {
    /// Appends a row for every remote participant and then each of its streams (ended ones first,
    /// so that a live stream in the same channel comes after), as long as `rows` has room; returns
    /// how many rows there are in all.
    func readStatistics(into rows: inout [StatisticsRow]) -> Int {
        var needed = 0
        func add(_ row: StatisticsRow) {
            needed += 1
            if rows.count < rows.capacity { rows.append(row) }
        }
        for session in sessions.values {
            for peer in session.peers.values {
                var row = StatisticsRow(
                    session: session.identifier, participant: peer.participant, path: peer.activeRoute?.kind,
                    roundTripMilliseconds: peer.paths?.roundTripTime)
                add(row)
                for (key, receive) in session.incoming.endedStreams where key.sender == peer.mediaID {
                    row.channel = session.channelName(key.channel)
                    row.stream = StreamStatistics(
                        levelDBFS: LevelMeter.floorDBFS, isSpeaking: false, receive: receive, hasEnded: true)
                    add(row)
                }
                for (key, receiving) in session.incoming.streams where key.sender == peer.mediaID {
                    row.channel = session.channelName(key.channel)
                    row.stream = StreamStatistics(
                        levelDBFS: receiving.stream.meter.rmsDBFS, isSpeaking: receiving.stream.isSpeaking,
                        receive: receiving.stream.statistics, hasEnded: false)
                    add(row)
                }
            }
        }
        return needed
    }
}

extension ParticipantStatistics {
    /// Every participant the rows name, with its streams by channel name, ordered by session and
    /// participant.
    static func assemble(_ rows: [StatisticsRow]) -> [ParticipantStatistics] {
        var result: [ParticipantStatistics] = []
        var index: [String: [ParticipantID: Int]] = [:]
        for row in rows {
            guard let channel = row.channel, let stream = row.stream else {
                index[row.session, default: [:]][row.participant] = result.count
                result.append(
                    ParticipantStatistics(
                        session: row.session, participant: row.participant, path: row.path,
                        roundTripMilliseconds: row.roundTripMilliseconds, streams: [:]))
                continue
            }
            if let position = index[row.session]?[row.participant] { result[position].streams[channel] = stream }
        }
        return result.sorted { ($0.session, $0.participant) < ($1.session, $1.participant) }
    }
}

extension Session {
    fileprivate func channelName(_ number: ChannelNumber) -> String { channels[number]?.name ?? number.description }
}

extension VoiceEngine {
    /// Every remote participant of every call and match, with their streams.
    public func statistics() -> [ParticipantStatistics] { statistics(roomForRows: 32) }

    /// The statistics, read into room for `roomForRows` rows at first, and more if that was short.
    func statistics(roomForRows: Int) -> [ParticipantStatistics] {
        var rows: [StatisticsRow] = []
        rows.reserveCapacity(roomForRows)
        while true {
            let needed = withCore { $0.readStatistics(into: &rows) }
            if needed <= rows.count { return ParticipantStatistics.assemble(rows) }
            rows = []
            rows.reserveCapacity(needed + 8)
        }
    }
}
