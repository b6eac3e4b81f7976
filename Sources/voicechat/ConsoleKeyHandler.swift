import Synchronization
import VoiceControl
import VoiceCore
import VoiceMedia

/// What a key pressed on the interactive console does to the session. Keys act on the session's
/// current state (read from a snapshot), so a toggle always flips what is there now; the one
/// thing it keeps is whose volume +/- change (`v` moves it on).
final class ConsoleKeyHandler: Sendable {
    /// What the console does after a key.
    enum Outcome: Sendable, Hashable {
        /// Keep going; show this status line (empty: leave the status as it was).
        case status(String)
        case quit
        /// Ctrl-C, which a raw terminal hands over as a key: stop as the signal would.
        case interrupt
    }

    /// How much +/- change the volume.
    static let volumeStep: Float = 0.1

    let control: any VoiceSessionControl
    /// The player whose own volume +/- change; nil: the call's or the channel's.
    private let volumePlayer = Mutex<String?>(nil)

    init(control: any VoiceSessionControl) { self.control = control }

    func handle(_ key: UInt8) -> Outcome {
        do throws(ControlError) {
            return try perform(key)
        } catch {
            return .status("refused: \(error)")
        }
    }

    private func perform(_ key: UInt8) throws(ControlError) -> Outcome {
        switch key {
        case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x04:  // q, Ctrl-D
            return .quit
        case 0x03:  // Ctrl-C
            return .interrupt
        case UInt8(ascii: "m"), UInt8(ascii: "M"):
            let muted = !control.snapshot().microphoneMuted
            try control.setMicrophoneMuted(muted)
            return .status(muted ? "microphone muted" : "microphone live")
        case UInt8(ascii: " "), UInt8(ascii: "t"), UInt8(ascii: "T"):
            // A terminal reports no key releases, so the talk key latches: one press talks, the
            // next stops. With an open microphone it changes nothing: pressing it must never be
            // what silences a player who did not ask for push-to-talk.
            let snapshot = control.snapshot()
            guard snapshot.pushToTalk else {
                return .status("open microphone: everyone hears you (p turns push-to-talk on)")
            }
            try control.setTalking(!snapshot.talking)
            return .status(
                snapshot.talking ? "push-to-talk: not talking (t to talk)" : "push-to-talk: talking (t to stop)")
        case UInt8(ascii: "p"), UInt8(ascii: "P"):
            // Push-to-talk on or off, both ways: the open microphone is always one key away.
            let pushToTalk = !control.snapshot().pushToTalk
            try control.setPushToTalk(pushToTalk)
            if pushToTalk { try control.setTalking(false) }
            return .status(
                pushToTalk
                    ? "push-to-talk on: not talking (t to talk, p for an open microphone)"
                    : "push-to-talk off: open microphone")
        case UInt8(ascii: "+"), UInt8(ascii: "="):
            return try changeVolume(by: Self.volumeStep)
        case UInt8(ascii: "-"), UInt8(ascii: "_"):
            return try changeVolume(by: -Self.volumeStep)
        case UInt8(ascii: "v"), UInt8(ascii: "V"):
            return nextVolumeTarget()
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            let index = Int(key - UInt8(ascii: "1"))
            let participants = control.snapshot().participants
            guard index < participants.count else {
                return .status("no player \(index + 1); there are \(participants.count)")
            }
            let participant = participants[index]
            try control.setPlayer(participant.participant, muted: !participant.muted, channel: nil)
            return .status("\(participant.participant) \(participant.muted ? "unmuted" : "muted")")
        case 0x09, UInt8(ascii: "c"), UInt8(ascii: "C"):
            return try nextChannel()
        default:
            return .status("")
        }
    }

    /// The call's volume, or the active channel's (the first channel's when none is active), or
    /// the chosen player's own.
    private func changeVolume(by step: Float) throws(ControlError) -> Outcome {
        let snapshot = control.snapshot()
        if let name = volumePlayer.withLock({ $0 }) {
            guard let player = snapshot.participants.first(where: { $0.participant.rawValue == name }) else {
                volumePlayer.withLock { $0 = nil }
                return .status("\(name) has gone; +/- change the volume of the call or channel again")
            }
            let allowed = VoiceMixer.playerVolumes
            let volume = min(max(((player.volume + step) * 10).rounded() / 10, allowed.lowerBound), allowed.upperBound)
            try control.setPlayerVolume(volume, player: ParticipantID(name))
            return .status("\(name) volume \(ConsoleRenderer.percent(volume))")
        }
        let target = snapshot.channels.first(where: \.active) ?? snapshot.channels.first
        let current = target?.volume ?? snapshot.volume ?? 1
        let volume = min(max(((current + step) * 10).rounded() / 10, 0), 1)
        try control.setVolume(volume, channel: target?.name)
        let percent = ConsoleRenderer.percent(volume)
        return .status(target.map { "\($0.name) volume \(percent)" } ?? "volume \(percent)")
    }

    /// Moves what +/- change on: the call or channel, then each player in the order listed, then
    /// back.
    private func nextVolumeTarget() -> Outcome {
        let players = control.snapshot().participants.map(\.participant.rawValue)
        let next = volumePlayer.withLock { selected in
            let position = selected.flatMap { players.firstIndex(of: $0) }
            let index = position.map { $0 + 1 } ?? 0
            selected = index < players.count ? players[index] : nil
            return selected
        }
        guard let next else { return .status("+/- change the volume of the call or channel") }
        return .status("+/- change \(next)'s own volume (v: the next player)")
    }

    /// Gives the microphone to the channel after the active one, starting it if needed.
    private func nextChannel() throws(ControlError) -> Outcome {
        let channels = control.snapshot().channels
        guard !channels.isEmpty else { return .status("a 1:1 call has no channels to switch") }
        let current = channels.firstIndex(where: \.active)
        let next = channels[current.map { ($0 + 1) % channels.count } ?? 0]
        if !next.started { try control.startChannel(next.name) }
        try control.activateChannel(next.name)
        return .status("talking in \(next.name)")
    }
}
