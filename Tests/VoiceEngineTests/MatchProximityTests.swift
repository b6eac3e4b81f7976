import Foundation
import Testing
import VoiceCore
import VoiceEngine
import VoiceSimulation
import VoiceTestSupport

/// Positional channels between real engines in virtual time, on direct paths.
@Suite struct MatchProximityTests {
    /// alice, bob and carol in channel "field", range 40, full level within 1, linear rolloff;
    /// carol stands at the origin and listens.
    func field() throws -> (SimulatedWorld, [SimulatedParticipant], [VoiceChannel]) {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        let settings = try ProximitySettings(range: 40, referenceDistance: 1, rolloff: .linear)
        var channels: [VoiceChannel] = []
        for player in players {
            let channel = try #require(player.match).voiceChat(named: "field")
            try channel.start()
            try channel.setActive(true)
            try channel.setProximity(settings)
            channels.append(channel)
        }
        players[2].isTalking = false
        return (world, players, channels)
    }

    /// Tells every player where everyone stands, as a game would: player `i` at `xs[i]` on the
    /// x axis and, if given, `zs[i]` on the z axis.
    func place(_ xs: [Float], z zs: [Float]? = nil, _ players: [SimulatedParticipant]) throws {
        let zs = zs ?? xs.map { _ in 0 }
        for player in players {
            let match = try #require(player.match)
            for (other, (x, z)) in zip(players, zip(xs, zs)) {
                let position = VoicePosition(x: x, y: 0, z: z)
                if other.name == player.name {
                    try match.setPosition(position)
                } else {
                    try match.setPosition(position, of: other.name)
                }
            }
        }
    }

    @Test func playersAreHeardFainterWithDistanceAndNotAtAllBeyondTheRange() throws {
        let (world, players, _) = try field()
        let (alice, bob, carol) = (players[0], players[1], players[2])

        world.run(seconds: 2, players)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 1.5) < 0.002, "nobody has a position yet")

        try place([2, 30, 0], players)
        world.run(seconds: 2.5, players)
        let near = carol.heardLevel(of: alice.frequency, lastSeconds: 1.5)
        let far = carol.heardLevel(of: bob.frequency, lastSeconds: 1.5)
        #expect(near > 0.05)
        // Linear from 1 at 1 to 0 at 40: 0.974 at 2, 0.256 at 30.
        #expect(abs(far / near - 0.256 / 0.974) < 0.06, "far \(far), near \(near)")

        // bob walks away beyond the range and its margin: carol hears nothing of him, and his
        // engine stops sending him to her (and to alice, 58 away).
        let sentBefore = bob.engine.counters.voiceOutOfRange
        try place([2, 60, 0], players)
        world.run(seconds: 2, players)
        #expect(carol.heardLevel(of: bob.frequency, lastSeconds: 1.5) < 0.002)
        #expect(carol.heardLevel(of: alice.frequency, lastSeconds: 1.5) > 0.05)
        #expect(bob.engine.counters.voiceOutOfRange - sentBefore >= 2 * 90, "two listeners, 2 s of 20 ms frames")
        #expect(alice.engine.counters.voiceOutOfRange > 0, "alice does not send to bob either")
    }

    /// Frames a player did not send because the listener was out of its range are no loss: after
    /// bob walks out of carol's range and back, carol has lost nothing of his on a clean network
    /// (before, every frame of the walk counted, 18.9 to 44.2 % on clean loopback).
    @Test func framesNotSentForRangeAreNotLoss() throws {
        let (world, players, _) = try field()
        let (bob, carol) = (players[1], players[2])
        func lostOfBob() -> Int {
            carol.engine.statistics().filter { $0.participant == "bob" }.flatMap { $0.streams.values }
                .reduce(0) { $0 + $1.receive.packetsLost }
        }
        try place([2, 10, 0], players)
        world.run(seconds: 2, players)
        try place([2, 60, 0], players)
        world.run(seconds: 2, players)
        try place([2, 10, 0], players)
        world.run(seconds: 2, players)
        #expect(carol.heardLevel(of: bob.frequency, lastSeconds: 1) > 0.05, "bob is heard again")
        #expect(lostOfBob() == 0)
    }

    @Test func aChannelThatIsNoLongerPositionalIsHeardWhole() throws {
        let (world, players, channels) = try field()
        let (bob, carol) = (players[1], players[2])
        try place([2, 30, 0], players)
        world.run(seconds: 2, players)
        let far = carol.heardLevel(of: bob.frequency, lastSeconds: 1.5)
        for channel in channels { try channel.setProximity(nil) }
        world.run(seconds: 2, players)
        let whole = carol.heardLevel(of: bob.frequency, lastSeconds: 1.5)
        #expect(abs(far / whole - 0.256) < 0.05, "far \(far), whole \(whole)")
        #expect(channels[2].proximity == nil)
    }

    /// A stereo listener hears a player on its right on the right, by the direction the game
    /// gives for its right; turned around, on the left.
    @Test func aStereoListenerHearsAPlayerOnTheSideTheyStandOn() throws {
        let world = SimulatedWorld()
        var stereo = SimulatedWorld.fastConfiguration
        stereo.outputChannels = 2
        let players = try ["alice", "bob", "carol"].enumerated().map { index, name in
            try world.participant(
                name, index: index, configuration: name == "carol" ? stereo : SimulatedWorld.fastConfiguration)
        }
        for player in players { _ = try player.join("arena", players: players.map(\.name)) }
        world.run(seconds: 0.1, players)
        let settings = try ProximitySettings(range: 40, referenceDistance: 10)
        for player in players {
            let channel = try #require(player.match).voiceChat(named: "field")
            try channel.start()
            try channel.setActive(true)
            try channel.setProximity(settings)
        }
        let (alice, bob, carol) = (players[0], players[1], players[2])
        carol.isTalking = false
        #expect(carol.engine.outputChannels == 2 && alice.engine.outputChannels == 1)
        // carol at the origin facing +z with +x to her right; alice 5 to her right, bob 5 ahead.
        try place([5, 0, 0], z: [0, 0, 5], players)
        let carolMatch = try #require(carol.match)
        try carolMatch.setPosition(.origin, right: VoicePosition(x: 1, y: 0, z: 0))
        world.run(seconds: 2.5, players)
        let aliceLeft = carol.heardLevel(of: alice.frequency, lastSeconds: 1.5, side: .left)
        let aliceRight = carol.heardLevel(of: alice.frequency, lastSeconds: 1.5, side: .right)
        let bobLeft = carol.heardLevel(of: bob.frequency, lastSeconds: 1.5, side: .left)
        let bobRight = carol.heardLevel(of: bob.frequency, lastSeconds: 1.5, side: .right)
        #expect(aliceRight > 0.05)
        #expect(20 * log10(aliceRight / max(aliceLeft, 1e-9)) >= 6, "alice \(aliceRight) right, \(aliceLeft) left")
        #expect(abs(bobLeft / bobRight - 1) < 0.05, "bob straight ahead: \(bobLeft) left, \(bobRight) right")
        #expect(abs(bobLeft - aliceRight / 2.0.squareRoot()) < 0.1 * bobLeft, "equal power")

        // Turned round (right is now -x): alice is on the left.
        try carolMatch.setPosition(.origin, right: VoicePosition(x: -1, y: 0, z: 0))
        world.run(seconds: 2, players)
        let turnedLeft = carol.heardLevel(of: alice.frequency, lastSeconds: 1.5, side: .left)
        let turnedRight = carol.heardLevel(of: alice.frequency, lastSeconds: 1.5, side: .right)
        #expect(20 * log10(turnedLeft / max(turnedRight, 1e-9)) >= 6, "alice \(turnedLeft) left, \(turnedRight) right")
    }

    @Test func aPositionThatIsNotFiniteOrOfAStrangerIsRefused() throws {
        let (_, players, _) = try field()
        let match = try #require(players[0].match)
        #expect(throws: VoiceChatError.self) { try match.setPosition(VoicePosition(x: .nan, y: 0, z: 0)) }
        #expect(throws: VoiceChatError.self) { try match.setPosition(.origin, of: "mallory") }
        #expect(throws: ProximitySettingsError.range(-1)) { try ProximitySettings(range: -1) }
        #expect(throws: ProximitySettingsError.referenceDistance(50, range: 40)) {
            try ProximitySettings(range: 40, referenceDistance: 50)
        }
    }
}
