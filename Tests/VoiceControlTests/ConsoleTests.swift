import Testing
import VoiceControl
import VoiceCore
import VoiceEngine

@testable import voicechat

@Suite struct ConsoleTests {
    @Test func renderingShowsMetersChannelsAndOneLinePerParticipant() {
        let lines = ConsoleRenderer.lines(for: .sample, status: "microphone muted", width: 200)
        #expect(lines[0] == "voicechat 1:15  microphone live")
        // −20 dBFS fills two thirds of a 24-wide meter spanning −60…0.
        #expect(lines[1] == "  in  [################--------]  -20.0 dB")
        #expect(lines[2] == "  out [------------------------]   -inf dB")
        #expect(lines[3] == "  channels: [*team on 50%] [ all off 100%]")
        let bob = lines[4]
        #expect(bob.hasPrefix("1 bob   [########----]  -18.0 dB speaking direct"))
        #expect(bob.contains("rtt 12 ms"))
        #expect(bob.contains("loss 2.5%"))
        #expect(bob.contains("jitter 3.2 ms") || bob.contains("jitter 3.3 ms"))
        #expect(bob.contains("buffer 41 ms"))
        #expect(lines[5].hasPrefix("2 carol [------------]   -inf dB MUTED    no path"))
        #expect(lines[6] == "keys:  " + ConsoleRenderer.keys.joined(separator: "  "))
        #expect(lines.last == "microphone muted")
        #expect(ConsoleRenderer.lines(for: .sample, width: 200).count == lines.count - 1)
    }

    @Test func renderingFitsTheWidthAndShowsPushToTalkAndTheCallVolume() {
        var snapshot = SessionSnapshot.sample
        snapshot.channels = []
        snapshot.volume = 0.7
        snapshot.microphoneMuted = true
        snapshot.pushToTalk = true
        snapshot.talking = true
        let lines = ConsoleRenderer.lines(for: snapshot, width: 30)
        #expect(lines.allSatisfy { $0.count <= 30 })
        #expect(lines[0] == "voicechat 1:15  microphone MUT")
        #expect(lines.contains("  volume 70%"))
        let full = ConsoleRenderer.lines(for: snapshot, width: 200)
        #expect(full[0] == "voicechat 1:15  microphone MUTED, talking")
        snapshot.participants = []
        #expect(ConsoleRenderer.lines(for: snapshot).contains("  (nobody else yet)"))
    }

    /// At 80 and 120 columns every key is shown, quitting first, and each player's row keeps its
    /// jitter and buffer, on a second line when the first is full (before, the keys line was cut
    /// before `q quit` and the rows before jitter).
    @Test(arguments: [80, 120])
    func aNarrowTerminalShowsEveryKeyAndEveryFigure(columns: Int) {
        let lines = ConsoleRenderer.lines(for: .sample, width: columns - 1)
        #expect(lines.allSatisfy { $0.count <= columns - 1 }, "\(lines)")
        let text = lines.joined(separator: "\n")
        for key in ConsoleRenderer.keys { #expect(text.contains(key), "\(key) at \(columns) columns:\n\(text)") }
        #expect(lines.first { $0.hasPrefix("keys:") }?.contains("q quit") == true)
        #expect(text.contains("jitter 3.2 ms") || text.contains("jitter 3.3 ms"), "\(text)")
        #expect(text.contains("buffer 41 ms"), "\(text)")
    }

    @Test func keysMapToControlCalls() {
        let control = FakeControl(.sample)
        let keys = ConsoleKeyHandler(control: control)
        #expect(keys.handle(UInt8(ascii: "m")) == .status("microphone muted"))
        #expect(keys.handle(UInt8(ascii: "m")) == .status("microphone live"))
        // With an open microphone the talk key changes nothing (it once turned push-to-talk on,
        // and its next press silenced the player with no key to undo it).
        #expect(
            keys.handle(UInt8(ascii: "t")) == .status("open microphone: everyone hears you (p turns push-to-talk on)"))
        #expect(
            keys.handle(UInt8(ascii: "p"))
                == .status("push-to-talk on: not talking (t to talk, p for an open microphone)"))
        #expect(keys.handle(UInt8(ascii: " ")) == .status("push-to-talk: talking (t to stop)"))
        #expect(keys.handle(UInt8(ascii: "t")) == .status("push-to-talk: not talking (t to talk)"))
        #expect(keys.handle(UInt8(ascii: "p")) == .status("push-to-talk off: open microphone"))
        #expect(keys.handle(UInt8(ascii: "+")) == .status("team volume 60%"))
        #expect(keys.handle(UInt8(ascii: "-")) == .status("team volume 50%"))
        #expect(keys.handle(UInt8(ascii: "2")) == .status("carol unmuted"))
        #expect(keys.handle(UInt8(ascii: "1")) == .status("bob muted"))
        #expect(keys.handle(UInt8(ascii: "9")) == .status("no player 9; there are 2"))
        #expect(keys.handle(0x09) == .status("talking in all"))
        #expect(keys.handle(UInt8(ascii: "c")) == .status("talking in team"))
        #expect(keys.handle(UInt8(ascii: "x")) == .status(""))
        #expect(keys.handle(UInt8(ascii: "q")) == .quit)
        #expect(keys.handle(0x04) == .quit)
        // Ctrl-C on the raw terminal stops the session as the signal does (exit 130), not as q (0).
        #expect(keys.handle(0x03) == .interrupt)
        #expect(
            control.calls == [
                .microphoneMuted(true), .microphoneMuted(false), .pushToTalk(true), .talking(false), .talking(true),
                .talking(false), .pushToTalk(false),
                .volume(0.6, "team"), .volume(0.5, "team"), .player("carol", muted: false, channel: nil),
                .player("bob", muted: true, channel: nil), .start("all"), .activate("all"), .activate("team"),
            ])
    }

    /// `v` moves +/- from the channel to each player's own volume in turn, up to 200 %, and back.
    @Test func theVolumeKeysMoveOnToEachPlayerAndBack() {
        let control = FakeControl(.sample)
        let keys = ConsoleKeyHandler(control: control)
        #expect(keys.handle(UInt8(ascii: "v")) == .status("+/- change bob's own volume (v: the next player)"))
        #expect(keys.handle(UInt8(ascii: "+")) == .status("bob volume 110%"))
        for _ in 0..<12 { _ = keys.handle(UInt8(ascii: "+")) }
        #expect(keys.handle(UInt8(ascii: "+")) == .status("bob volume 200%"))
        #expect(keys.handle(UInt8(ascii: "v")) == .status("+/- change carol's own volume (v: the next player)"))
        #expect(keys.handle(UInt8(ascii: "-")) == .status("carol volume 90%"))
        #expect(keys.handle(UInt8(ascii: "v")) == .status("+/- change the volume of the call or channel"))
        #expect(keys.handle(UInt8(ascii: "+")) == .status("team volume 60%"))
        #expect(control.calls.first == .playerVolume("bob", 1.1))
        #expect(control.calls.suffix(2) == [.playerVolume("carol", 0.9), .volume(0.6, "team")])
        let bob = control.snapshot().participants[0]
        #expect(bob.volume == 2)
        #expect(ConsoleRenderer.line(for: bob, number: 1, nameWidth: 5).contains("volume 200%"))
    }

    @Test func volumeKeysStopAtTheEndsAndActOnTheCallWithoutChannels() {
        var snapshot = SessionSnapshot.sample
        snapshot.channels = []
        snapshot.volume = 0.95
        let control = FakeControl(snapshot)
        let keys = ConsoleKeyHandler(control: control)
        #expect(keys.handle(UInt8(ascii: "+")) == .status("volume 100%"))
        #expect(keys.handle(UInt8(ascii: "+")) == .status("volume 100%"))
        #expect(keys.handle(0x09) == .status("a 1:1 call has no channels to switch"))
        #expect(control.calls == [.volume(1, nil), .volume(1, nil)])
    }

    @Test func aRefusedKeySaysWhy() {
        final class Refusing: VoiceSessionControl {
            func snapshot() -> SessionSnapshot { .sample }
            func setMicrophoneMuted(_ muted: Bool) throws(ControlError) { throw .engine(.engineShutDown) }
            func setPushToTalk(_ enabled: Bool) throws(ControlError) {}
            func setTalking(_ down: Bool) throws(ControlError) {}
            func setVolume(_ volume: Float, channel: String?) throws(ControlError) {}
            func setPlayer(_ player: ParticipantID, muted: Bool, channel: String?) throws(ControlError) {}
            func setPlayerVolume(_ volume: Float, player: ParticipantID) throws(ControlError) {}
            func startChannel(_ name: String) throws(ControlError) {}
            func stopChannel(_ name: String) throws(ControlError) {}
            func activateChannel(_ name: String) throws(ControlError) {}
            func setMaximumDelay(milliseconds: Double) throws(ControlError) {}
            func setSpeechProcessing(denoise: Bool?, automaticGainControl: Bool?, voiceActivityThresholdDBFS: Float?)
                throws(ControlError)
            {}
            func setPosition(_ position: VoicePosition, right: VoicePosition?, player: ParticipantID?)
                throws(ControlError)
            {}
            func setProximity(_ settings: ProximitySettings?, channel: String) throws(ControlError) {}
        }
        #expect(
            ConsoleKeyHandler(control: Refusing()).handle(UInt8(ascii: "m"))
                == .status("refused: the voice engine refused: the voice engine has been shut down"))
    }
}
