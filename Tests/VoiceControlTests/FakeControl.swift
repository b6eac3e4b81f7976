import Synchronization
import VoiceControl
import VoiceCore
import VoiceEngine

/// A control that records what it was asked to do and answers with a snapshot it keeps up to date,
/// for tests of the layers above the engine.
final class FakeControl: VoiceSessionControl {
    enum Call: Hashable {
        case microphoneMuted(Bool), pushToTalk(Bool), talking(Bool), volume(Float, String?)
        case player(ParticipantID, muted: Bool, channel: String?), start(String), stop(String), activate(String)
        case maximumDelay(Double)
        case playerVolume(ParticipantID, Float)
        case speechProcessing(denoise: Bool?, agc: Bool?, threshold: Float?)
        case position(VoicePosition, right: VoicePosition?, player: ParticipantID?)
        case proximity(ProximitySettings?, channel: String)
    }

    private let state: Mutex<(snapshot: SessionSnapshot, calls: [Call])>

    init(_ snapshot: SessionSnapshot) { state = Mutex((snapshot, [])) }

    var calls: [Call] { state.withLock { $0.calls } }

    func snapshot() -> SessionSnapshot { state.withLock { $0.snapshot } }

    private func record(_ call: Call, _ change: (inout SessionSnapshot) throws(ControlError) -> Void)
        throws(ControlError)
    {
        try state.withLock { state throws(ControlError) in
            try change(&state.snapshot)
            state.calls.append(call)
        }
    }

    func setMicrophoneMuted(_ muted: Bool) throws(ControlError) {
        try record(.microphoneMuted(muted)) { $0.microphoneMuted = muted }
    }

    func setPushToTalk(_ enabled: Bool) throws(ControlError) {
        try record(.pushToTalk(enabled)) { $0.pushToTalk = enabled }
    }

    func setTalking(_ down: Bool) throws(ControlError) { try record(.talking(down)) { $0.talking = down } }

    func setVolume(_ volume: Float, channel: String?) throws(ControlError) {
        try record(.volume(volume, channel)) { snapshot throws(ControlError) in
            if let channel {
                let index = try Self.index(of: channel, in: snapshot)
                snapshot.channels[index].volume = volume
            } else {
                snapshot.volume = volume
            }
        }
    }

    func setPlayer(_ player: ParticipantID, muted: Bool, channel: String?) throws(ControlError) {
        try record(.player(player, muted: muted, channel: channel)) { snapshot throws(ControlError) in
            guard let index = snapshot.participants.firstIndex(where: { $0.participant == player }) else {
                throw .unknownPlayer(player, available: snapshot.participants.map(\.participant))
            }
            snapshot.participants[index].muted = muted
        }
    }

    func setPlayerVolume(_ volume: Float, player: ParticipantID) throws(ControlError) {
        try record(.playerVolume(player, volume)) { snapshot throws(ControlError) in
            guard let index = snapshot.participants.firstIndex(where: { $0.participant == player }) else {
                throw .unknownPlayer(player, available: snapshot.participants.map(\.participant))
            }
            snapshot.participants[index].volume = volume
        }
    }

    func setPosition(_ position: VoicePosition, right: VoicePosition?, player: ParticipantID?) throws(ControlError) {
        try record(.position(position, right: right, player: player)) { _ in }
    }

    func setProximity(_ settings: ProximitySettings?, channel: String) throws(ControlError) {
        try record(.proximity(settings, channel: channel)) { snapshot throws(ControlError) in
            _ = try Self.index(of: channel, in: snapshot)
        }
    }

    func setSpeechProcessing(denoise: Bool?, automaticGainControl: Bool?, voiceActivityThresholdDBFS: Float?)
        throws(ControlError)
    {
        try record(
            .speechProcessing(denoise: denoise, agc: automaticGainControl, threshold: voiceActivityThresholdDBFS)
        ) {
            _ in
        }
    }

    func startChannel(_ name: String) throws(ControlError) {
        try record(.start(name)) { snapshot throws(ControlError) in
            snapshot.channels[try Self.index(of: name, in: snapshot)].started = true
        }
    }

    func stopChannel(_ name: String) throws(ControlError) {
        try record(.stop(name)) { snapshot throws(ControlError) in
            snapshot.channels[try Self.index(of: name, in: snapshot)].started = false
        }
    }

    func activateChannel(_ name: String) throws(ControlError) {
        try record(.activate(name)) { snapshot throws(ControlError) in
            let index = try Self.index(of: name, in: snapshot)
            for other in snapshot.channels.indices { snapshot.channels[other].active = other == index }
        }
    }

    func setMaximumDelay(milliseconds: Double) throws(ControlError) {
        try record(.maximumDelay(milliseconds)) { snapshot throws(ControlError) in
            guard (40...1_000).contains(milliseconds) else {
                throw .engine(.outOfRange("the maximum delay is outside 40…1000 ms"))
            }
            snapshot.delayBudget?.maximumMilliseconds = milliseconds
        }
    }

    private static func index(of channel: String, in snapshot: SessionSnapshot) throws(ControlError) -> Int {
        guard let index = snapshot.channels.firstIndex(where: { $0.name == channel }) else {
            throw .unknownChannel(channel, available: snapshot.channels.map(\.name))
        }
        return index
    }
}

extension SessionSnapshot {
    /// A match snapshot: two channels (team active), bob speaking on a direct path, carol muted.
    static var sample: SessionSnapshot {
        SessionSnapshot(
            time: 75.4, inputLevelDB: -20, outputLevelDB: -120, microphoneMuted: false, pushToTalk: false,
            talking: false,
            channels: [
                ChannelSnapshot(name: "team", started: true, active: true, volume: 0.5),
                ChannelSnapshot(name: "all", started: false, active: false, volume: 1),
            ],
            participants: [
                ParticipantSnapshot(
                    participant: "bob", levelDB: -18, speaking: true, path: "direct", rttMilliseconds: 12.4,
                    lossFraction: 0.025, jitterMilliseconds: 3.25, bufferDelayMilliseconds: 41,
                    packetsReceived: 390, packetsLost: 10, channels: ["team"]),
                ParticipantSnapshot(participant: "carol", muted: true),
            ])
    }
}
