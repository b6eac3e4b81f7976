import Foundation
import Testing
import VoiceControl
import VoiceCore
import VoiceEngine
import VoiceMedia
import VoiceSimulation
import VoiceTestSupport

/// Commands through a real control socket, acting on engines that run in virtual time.
@Suite struct EngineControlTests {
    @Test func callCommandsChangeWhatTheEngineDoes() async throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall()
        let (alice, bob) = (setup.alice, setup.bob)
        let control = CallControl(service: setup.bobService, remote: "alice")
        world.run(seconds: 3, [alice, bob])
        let path = temporarySocketPath()
        let server = try await ControlServer.start(path: path, control: control)
        defer { Task { await server.close() } }
        let client = try LineClient(path: path)

        let stats = try #require(try client.request(#"{"id":1,"command":"stats"}"#).snapshot)
        #expect(stats.channels.isEmpty)
        #expect(stats.volume == 1)
        #expect(stats.inputLevelDB > -30)
        #expect(stats.outputLevelDB > -40)
        let heard = try #require(stats.participants.first)
        #expect(stats.participants.count == 1)
        #expect(heard.participant == "alice")
        #expect(heard.path == "direct")
        #expect(heard.rttMilliseconds != nil)
        #expect(heard.packetsReceived > 50)
        #expect(heard.levelDB > -40)
        #expect((0...0.05).contains(heard.lossFraction))

        #expect(try client.request(#"{"id":2,"command":"set-volume","volume":0.5}"#).ok)
        #expect(setup.bobService.remoteParticipantVolume == 0.5)

        // Muting the player silences them and keeps the volume to return to.
        #expect(try client.request(#"{"id":3,"command":"mute-player","player":"alice"}"#).ok)
        #expect(setup.bobService.remoteParticipantVolume == 0)
        world.run(seconds: 1.5, [alice, bob])
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) < 0.005)
        let muted = try #require(try client.request(#"{"id":4,"command":"stats"}"#).snapshot)
        #expect(muted.participants.first?.muted == true)
        #expect(muted.volume == 0.5)
        #expect(try client.request(#"{"id":5,"command":"unmute-player","player":"alice"}"#).ok)
        #expect(setup.bobService.remoteParticipantVolume == 0.5)
        world.run(seconds: 1.5, [alice, bob])
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) > 0.02)

        // The microphone: alice stops hearing bob.
        #expect(try client.request(#"{"id":6,"command":"mute"}"#).ok)
        #expect(setup.bobService.isMicrophoneMuted)
        world.run(seconds: 1.5, [alice, bob])
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 1) < 0.005)
        #expect(try client.request(#"{"id":7,"command":"unmute"}"#).ok)
        #expect(!setup.bobService.isMicrophoneMuted)

        #expect(try client.request(#"{"id":8,"command":"push-to-talk","enabled":true}"#).ok)
        #expect(try client.request(#"{"id":9,"command":"talk","down":true}"#).ok)
        #expect(setup.bobService.pushToTalk && setup.bobService.isTalkKeyDown)

        // What a call cannot do is refused with the reason, and the call goes on.
        let channel = try client.request(#"{"id":10,"command":"start-channel","channel":"team"}"#)
        #expect(channel.error?.contains("needs a match") == true)
        let volume = try client.request(#"{"id":11,"command":"set-volume","volume":0.2,"channel":"team"}"#)
        #expect(volume.error?.contains("a 1:1 call has no channels") == true)
        let player = try client.request(#"{"id":12,"command":"mute-player","player":"carol"}"#)
        #expect(player.error == "no player \"carol\"; use one of: alice")
        #expect(setup.bobService.remoteParticipantVolume == 0.5)
        #expect(try client.request(#"{"id":13,"command":"stats"}"#).snapshot?.participants.first?.path == "direct")
    }

    /// The delay budget is set through the socket, reaches the engine's streams at once, and is
    /// reported with how it is shared out; an impossible one is refused and changes nothing.
    @Test func theDelayBudgetIsSetAndReportedThroughTheControlSocket() async throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall()
        let (alice, bob) = (setup.alice, setup.bob)
        let control = CallControl(service: setup.bobService, remote: "alice")
        world.run(seconds: 2, [alice, bob])
        let path = temporarySocketPath()
        let server = try await ControlServer.start(path: path, control: control)
        defer { Task { await server.close() } }
        let client = try LineClient(path: path)

        let before = try #require(try client.request(#"{"id":1,"command":"stats"}"#).snapshot?.delayBudget)
        #expect(before.maximumMilliseconds == 100)
        #expect(before.fixedMilliseconds == 36.5)
        #expect(before.bufferingMilliseconds == 63.5)
        #expect(before.repairReachLimitFrames == 2)
        let stream = try #require(bob.engine.statistics().first?.streams.values.first)
        #expect(stream.receive.targetCeilingMilliseconds == 63.5)
        #expect(stream.receive.targetDelayMilliseconds <= 63.5)

        #expect(try client.request(#"{"id":2,"command":"set-max-delay","milliseconds":150}"#).ok)
        #expect(bob.engine.maximumDelayMilliseconds == 150)
        let after = try #require(try client.request(#"{"id":3,"command":"stats"}"#).snapshot?.delayBudget)
        #expect(after.maximumMilliseconds == 150)
        #expect(after.bufferingMilliseconds == 113.5)
        #expect(after.repairReachLimitFrames == 4)
        let widened = try #require(bob.engine.statistics().first?.streams.values.first)
        #expect(widened.receive.targetCeilingMilliseconds == 113.5)

        let refused = try client.request(#"{"id":4,"command":"set-max-delay","milliseconds":20}"#)
        #expect(!refused.ok)
        #expect(refused.error?.contains("40…1000 ms") == true)
        #expect(bob.engine.maximumDelayMilliseconds == 150)
        #expect(
            try client.request(#"{"id":5,"command":"set-max-delay"}"#).error
                == "set-max-delay needs field \"milliseconds\"")
    }

    /// Noise suppression, gain control and the gate's threshold change on the running engine,
    /// what is not given stays, and the snapshot reports them.
    @Test func speechProcessingIsSetThroughTheControlSocket() async throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall()
        let (alice, bob) = (setup.alice, setup.bob)
        let control = CallControl(service: setup.bobService, remote: "alice")
        world.run(seconds: 1, [alice, bob])
        let path = temporarySocketPath()
        let server = try await ControlServer.start(path: path, control: control)
        defer { Task { await server.close() } }
        let client = try LineClient(path: path)

        #expect(try client.request(#"{"id":1,"command":"stats"}"#).snapshot?.speechProcessing == SpeechProcessing())
        #expect(try client.request(#"{"id":2,"command":"set-speech-processing","denoise":true}"#).ok)
        #expect(
            try client.request(#"{"id":3,"command":"set-speech-processing","agc":true,"vadThresholdDB":-40}"#).ok)
        let expected = SpeechProcessing(denoise: true, automaticGainControl: true, voiceActivityThresholdDBFS: -40)
        #expect(bob.engine.speechProcessing == expected)
        #expect(try client.request(#"{"id":4,"command":"stats"}"#).snapshot?.speechProcessing == expected)
        // The same stream goes on: alice keeps receiving bob's packets.
        func received() -> Int { alice.engine.statistics().first?.streams.values.first?.receive.packetsReceived ?? 0 }
        let before = received()
        world.run(seconds: 1, [alice, bob])
        #expect(received() > before)
        let refused = try client.request(#"{"id":5,"command":"set-speech-processing","vadThresholdDB":-130}"#)
        #expect(refused.error == "vadThresholdDB -130.0 is outside -120…0 dBFS")
        #expect(bob.engine.speechProcessing == expected)
    }

    @Test func matchCommandsDriveChannelsVolumesAndMutes() async throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let (alice, bob, carol) = (players[0], players[1], players[2])
        let aliceMatch = try #require(alice.match)
        let team = try aliceMatch.voiceChat(named: "team")
        let all = try aliceMatch.voiceChat(named: "all")
        let bobTeam = try #require(bob.match).voiceChat(named: "team")
        try bobTeam.start()
        try bobTeam.setActive(true)
        carol.isTalking = false
        alice.isTalking = false
        let control = MatchControl(match: aliceMatch, channels: [team, all])
        let path = temporarySocketPath()
        let server = try await ControlServer.start(path: path, control: control)
        defer { Task { await server.close() } }
        let client = try LineClient(path: path)

        #expect(try client.request(#"{"id":1,"command":"start-channel","channel":"team"}"#).ok)
        #expect(team.isStarted && !all.isStarted)
        #expect(try client.request(#"{"id":2,"command":"start-channel","channel":"all"}"#).ok)
        #expect(try client.request(#"{"id":3,"command":"activate-channel","channel":"all"}"#).ok)
        #expect(all.isActive && !team.isActive)
        #expect(try client.request(#"{"id":4,"command":"activate-channel","channel":"team"}"#).ok)
        #expect(team.isActive && !all.isActive)
        #expect(try client.request(#"{"id":5,"command":"stop-channel","channel":"all"}"#).ok)
        #expect(!all.isStarted)
        #expect(try client.request(#"{"id":6,"command":"set-volume","channel":"team","volume":0.25}"#).ok)
        #expect(team.volume == 0.25)
        #expect(try client.request(#"{"id":7,"command":"set-volume","channel":"team","volume":1}"#).ok)

        world.run(seconds: 2.5, players)
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 1.5) > 0.05)
        let stats = try #require(try client.request(#"{"id":8,"command":"stats"}"#).snapshot)
        #expect(stats.channels.map(\.name) == ["team", "all"])
        #expect(stats.channels.map(\.started) == [true, false])
        #expect(stats.channels.map(\.active) == [true, false])
        #expect(stats.channels[0].playerStates["bob"] == "speaking")
        // Carol is in the match and reachable, but never started team (before, "disconnected").
        #expect(stats.channels[0].playerStates["carol"] == "not-in-channel")
        #expect(stats.participants.map(\.participant) == ["bob", "carol"])
        let bobLine = stats.participants[0]
        #expect(bobLine.speaking)
        #expect(bobLine.levelDB > -40)
        #expect(bobLine.path == "direct")
        #expect(bobLine.channels == ["team"])
        #expect(bobLine.packetsReceived > 50)

        // Muting bob in team: alice hears nothing of him.
        #expect(try client.request(#"{"id":9,"command":"mute-player","player":"bob","channel":"team"}"#).ok)
        world.run(seconds: 1.5, players)
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 1) < 0.005)
        let muted = try #require(try client.request(#"{"id":10,"command":"stats"}"#).snapshot)
        #expect(muted.channels[0].mutedPlayers == ["bob"])
        #expect(muted.participants[0].muted == false)  // still heard in "all"
        #expect(try client.request(#"{"id":11,"command":"mute-player","player":"bob"}"#).ok)
        #expect(try client.request(#"{"id":12,"command":"stats"}"#).snapshot?.participants[0].muted == true)
        #expect(try client.request(#"{"id":13,"command":"unmute-player","player":"bob"}"#).ok)
        world.run(seconds: 1.5, players)
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 1) > 0.05)

        // The microphone, engine-wide: bob hears alice while she talks, then not once muted.
        alice.isTalking = true
        world.run(seconds: 2, players)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1.5) > 0.05)
        #expect(try client.request(#"{"id":14,"command":"mute"}"#).ok)
        world.run(seconds: 1.5, players)
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 1) < 0.005)
        #expect(try client.request(#"{"id":15,"command":"stats"}"#).snapshot?.microphoneMuted == true)

        // Bob's own volume at alice, in every channel: half as loud, then back.
        alice.isTalking = false
        world.run(seconds: 1.5, players)
        let full = alice.heardLevel(of: bob.frequency, lastSeconds: 1)
        #expect(try client.request(#"{"id":20,"command":"set-player-volume","player":"bob","volume":0.5}"#).ok)
        world.run(seconds: 1.5, players)
        let half = alice.heardLevel(of: bob.frequency, lastSeconds: 1)
        #expect(abs(half / full - 0.5) < 0.05, "\(half) against \(full)")
        #expect(try client.request(#"{"id":21,"command":"stats"}"#).snapshot?.participants[0].volume == 0.5)
        let loud = try client.request(#"{"id":22,"command":"set-player-volume","player":"mallory","volume":1}"#)
        #expect(loud.error == "no player \"mallory\"; use one of: bob, carol")

        let channel = try client.request(#"{"id":16,"command":"stop-channel","channel":"red"}"#)
        #expect(channel.error == "no channel \"red\"; use one of: team, all")
        // A channel not given at the start is opened by starting it (it could not be before).
        #expect(try client.request(#"{"id":23,"command":"start-channel","channel":"squad"}"#).ok)
        #expect(control.channels.map(\.name) == ["team", "all", "squad"])
        #expect(control.channels[2].isStarted)
        let opened = try #require(try client.request(#"{"id":24,"command":"stats"}"#).snapshot)
        #expect(opened.channels.map(\.name) == ["team", "all", "squad"])
        #expect(try client.request(#"{"id":25,"command":"activate-channel","channel":"squad"}"#).ok)
        #expect(try client.request(#"{"id":26,"command":"start-channel","channel":"squad"}"#).ok)
        #expect(control.channels.count == 3)
        let player = try client.request(#"{"id":17,"command":"mute-player","player":"mallory","channel":"team"}"#)
        #expect(player.error == "no player \"mallory\"; use one of: bob, carol")
        #expect(team.isStarted)
    }

    /// Positions and a positional channel set over the control socket: alice hears bob fainter
    /// as he stands farther, and not at all beyond the range; a call refuses both.
    @Test func positionsAndAPositionalChannelAreSetThroughTheControlSocket() async throws {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let (alice, bob, carol) = (players[0], players[1], players[2])
        let aliceMatch = try #require(alice.match)
        let field = try aliceMatch.voiceChat(named: "field")
        let bobMatch = try #require(bob.match)
        let bobField = try bobMatch.voiceChat(named: "field")
        try bobField.start()
        try bobField.setActive(true)
        try bobField.setProximity(try ProximitySettings(range: 40, referenceDistance: 1, rolloff: .linear))
        try bobMatch.setPosition(.origin)
        try bobMatch.setPosition(.origin, of: "alice")
        alice.isTalking = false
        carol.isTalking = false
        let control = MatchControl(match: aliceMatch, channels: [field])
        let path = temporarySocketPath()
        let server = try await ControlServer.start(path: path, control: control)
        defer { Task { await server.close() } }
        let client = try LineClient(path: path)

        #expect(try client.request(#"{"id":1,"command":"start-channel","channel":"field"}"#).ok)
        world.run(seconds: 1.5, players)
        let whole = alice.heardLevel(of: bob.frequency, lastSeconds: 1)
        #expect(whole > 0.05)
        let proximity = #"{"id":2,"command":"set-proximity","channel":"field","range":40,"rolloff":"linear"}"#
        #expect(try client.request(proximity).ok)
        #expect(field.proximity == (try ProximitySettings(range: 40, referenceDistance: 1, rolloff: .linear)))
        #expect(try client.request(#"{"id":3,"command":"set-position","x":0,"y":0,"z":0}"#).ok)
        #expect(try client.request(#"{"id":4,"command":"set-position","x":0,"y":30,"z":0,"player":"bob"}"#).ok)
        world.run(seconds: 1.5, players)
        let far = alice.heardLevel(of: bob.frequency, lastSeconds: 1)
        #expect(abs(far / whole - 0.256) < 0.05, "\(far) against \(whole)")
        #expect(try client.request(#"{"id":5,"command":"set-position","x":0,"y":0,"z":50,"player":"bob"}"#).ok)
        world.run(seconds: 1.5, players)
        #expect(alice.heardLevel(of: bob.frequency, lastSeconds: 1) < 0.002)
        let stranger = try client.request(#"{"id":6,"command":"set-position","x":0,"y":0,"z":0,"player":"mallory"}"#)
        #expect(stranger.error == "no player \"mallory\"; use one of: bob, carol")
        let unknown = try client.request(#"{"id":7,"command":"set-proximity","channel":"red","range":10}"#)
        #expect(unknown.error == "no channel \"red\"; use one of: field")
        #expect(try client.request(#"{"id":8,"command":"set-proximity","channel":"field","range":0}"#).ok)
        world.run(seconds: 1.5, players)
        #expect(abs(alice.heardLevel(of: bob.frequency, lastSeconds: 1) / whole - 1) < 0.05)

        let call = try SimulatedWorld().acceptedCall()
        let callControl = CallControl(service: call.bobService, remote: "alice")
        #expect(throws: ControlError.matchOnly(operation: "setting a position")) {
            try callControl.setPosition(.origin, right: nil, player: nil)
        }
    }

    @Test func subscribersGetSnapshotsOfARunningCall() async throws {
        let world = SimulatedWorld()
        let setup = try world.acceptedCall()
        world.run(seconds: 2, [setup.alice, setup.bob])
        let control = CallControl(service: setup.aliceService, remote: "bob")
        let path = temporarySocketPath()
        let server = try await ControlServer.start(path: path, control: control)
        defer { Task { await server.close() } }
        let client = try LineClient(path: path)
        #expect(try client.request(#"{"id":1,"command":"subscribe","intervalMilliseconds":50}"#).ok)
        let first = try client.nextPush()
        world.run(seconds: 0.5, [setup.alice, setup.bob])
        var later = try client.nextPush()
        // Pushes already on their way may still carry the first time; a few dozen at most.
        for _ in 0..<40 where later.snapshot.time == first.snapshot.time { later = try client.nextPush() }
        #expect(later.snapshot.time > first.snapshot.time)
        #expect(later.snapshot.participants.first?.participant == "bob")
        #expect(later.snapshot.participants.first?.path == "direct")
        #expect(try client.request(#"{"id":2,"command":"unsubscribe"}"#).ok)
    }
}
