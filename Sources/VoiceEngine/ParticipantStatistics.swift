import VoiceCore
import VoiceMedia
import VoiceTransport

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

extension EngineCore {
    func statistics() -> [ParticipantStatistics] {
        var result: [ParticipantStatistics] = []
        for session in sessions.values.sorted(by: { $0.identifier < $1.identifier }) {
            for peer in session.peers.values.sorted(by: { $0.participant < $1.participant }) {
                var streams: [String: StreamStatistics] = [:]
                for (key, receive) in session.endedStreams where key.sender == peer.mediaID {
                    streams[session.channelName(key.channel)] = StreamStatistics(
                        levelDBFS: LevelMeter.floorDBFS, isSpeaking: false, receive: receive, hasEnded: true)
                }
                for (key, receiving) in session.streams where key.sender == peer.mediaID {
                    streams[session.channelName(key.channel)] = StreamStatistics(
                        levelDBFS: receiving.stream.meter.rmsDBFS, isSpeaking: receiving.stream.isSpeaking,
                        receive: receiving.stream.statistics, hasEnded: false)
                }
                result.append(
                    ParticipantStatistics(
                        session: session.identifier, participant: peer.participant, path: peer.activeRoute?.kind,
                        roundTripMilliseconds: peer.paths?.roundTripTime, streams: streams))
            }
        }
        return result
    }
}

extension Session {
    fileprivate func channelName(_ number: UInt16) -> String { channels[number]?.name ?? String(number) }
}

extension VoiceEngine {
    /// Every remote participant of every call and match, with their streams.
    public func statistics() -> [ParticipantStatistics] { withCore { $0.statistics() } }
}
