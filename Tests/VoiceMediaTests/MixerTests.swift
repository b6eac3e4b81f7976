import Testing
import VoiceCore
import VoiceMedia
import VoiceWire

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct MixerTests {
    private static let playerA: MediaID = 10
    private static let playerB: MediaID = 20
    private static let playerC: MediaID = 30
    private static let lobby: MixerChannelID = 1
    private static let squad: MixerChannelID = 2

    /// Submits a constant frame for a stream and reports whether the mixer took it.
    @discardableResult
    private static func submit(_ mixer: VoiceMixer, _ value: Float, sender: MediaID, channel: MixerChannelID) throws
        -> Bool
    {
        let frame = [Float](repeating: value, count: mixer.frameSamples)
        return try frame.withUnsafeBufferPointer { try mixer.submit($0, sender: sender, channel: channel) }
    }

    private static func mix(_ mixer: VoiceMixer) throws -> [Float] {
        var output = [Float](repeating: .nan, count: mixer.frameSamples * mixer.outputChannels)
        try output.withUnsafeMutableBufferPointer { try mixer.mix(into: $0) }
        return output
    }

    /// Lobby at volume 0.5 with players A and B; squad at 0.25 with A (again) and C, C muted there.
    private static func makeTwoChannelMixer(frameDuration: FrameDuration = .ms20) throws -> VoiceMixer {
        let mixer = try VoiceMixer(frameDuration: frameDuration)
        try mixer.addChannel(lobby, name: "lobby", volume: 0.5)
        try mixer.addChannel(squad, name: "squad", volume: 0.25)
        try mixer.start(channel: lobby)
        try mixer.start(channel: squad)
        try mixer.addStream(sender: playerA, channel: lobby)
        try mixer.addStream(sender: playerB, channel: lobby)
        try mixer.addStream(sender: playerA, channel: squad)
        try mixer.addStream(sender: playerC, channel: squad)
        try mixer.setPlayer(playerC, muted: true, channel: squad)
        return mixer
    }

    /// A player's own volume multiplies the channel's in every channel they speak in, holds for a
    /// stream added later, and at 0 stops their decoding as a mute does.
    /// A tapped player's voice comes out alone, a frame per mixed frame: their streams in every
    /// channel at the volumes the mix hears them at, silence while they say nothing, nothing of
    /// the others; once untapped, nothing more.
    @Test func aTappedPlayerIsHeardApartFrameByFrame() throws {
        let mixer = try Self.makeTwoChannelMixer()
        let ring = AudioRing(channels: 1, minimumFrames: 4 * mixer.frameSamples)
        mixer.tap(player: Self.playerA, into: ring)
        try Self.submit(mixer, 0.4, sender: Self.playerA, channel: Self.lobby)
        try Self.submit(mixer, 0.4, sender: Self.playerA, channel: Self.squad)
        try Self.submit(mixer, 0.3, sender: Self.playerB, channel: Self.lobby)
        _ = try Self.mix(mixer)
        _ = try Self.mix(mixer)  // A said nothing this frame
        var tapped = [Float](repeating: .nan, count: 4 * mixer.frameSamples)
        let read = tapped.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        #expect(read == 2 * mixer.frameSamples)
        // 0.4 × 0.5 in the lobby and 0.4 × 0.25 in the squad.
        #expect(tapped[0..<mixer.frameSamples].allSatisfy { abs($0 - 0.3) < 1e-6 })
        #expect(tapped[mixer.frameSamples..<read].allSatisfy { $0 == 0 })
        mixer.tap(player: Self.playerA, into: nil)
        try Self.submit(mixer, 0.4, sender: Self.playerA, channel: Self.lobby)
        _ = try Self.mix(mixer)
        #expect(ring.availableToRead == 0)
    }

    @Test func aPlayersVolumeScalesThemInEveryChannel() throws {
        let mixer = try Self.makeTwoChannelMixer()
        try mixer.setVolume(1.5, player: Self.playerA)
        #expect(mixer.volume(ofPlayer: Self.playerA) == 1.5)
        #expect(mixer.volume(ofPlayer: Self.playerB) == 1)
        try Self.submit(mixer, 0.25, sender: Self.playerA, channel: Self.lobby)
        try Self.submit(mixer, 0.125, sender: Self.playerB, channel: Self.lobby)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.squad)
        // A: 0.25 × 0.5 × 1.5 in the lobby and 0.5 × 0.25 × 1.5 in the squad; B as before.
        let lobbyPart: Float = 0.25 * 0.5 * 1.5 + 0.125 * 0.5
        let squadPart: Float = 0.5 * 0.25 * 1.5
        #expect(try Self.mix(mixer).allSatisfy { $0 == lobbyPart + squadPart })

        try mixer.setVolume(0.5, player: Self.playerC)
        try mixer.setPlayer(Self.playerC, muted: false, channel: Self.squad)
        mixer.removeStream(sender: Self.playerC, channel: Self.squad)
        try mixer.addStream(sender: Self.playerC, channel: Self.squad)
        try Self.submit(mixer, 0.5, sender: Self.playerC, channel: Self.squad)
        let quieter: Float = 0.5 * 0.25 * 0.5
        #expect(try Self.mix(mixer).allSatisfy { $0 == quieter })

        try mixer.setVolume(0, player: Self.playerA)
        #expect(!mixer.shouldDecode(sender: Self.playerA, channel: Self.lobby))
        #expect(!mixer.shouldDecode(sender: Self.playerA, channel: Self.squad))
        try mixer.setVolume(1, player: Self.playerA)
        #expect(mixer.shouldDecode(sender: Self.playerA, channel: Self.lobby))
        #expect(throws: MixerError.playerVolumeOutOfRange(2.5)) { try mixer.setVolume(2.5, player: Self.playerA) }
        #expect(throws: MixerError.self) { try mixer.setVolume(.nan, player: Self.playerA) }
        #expect(mixer.volume(ofPlayer: Self.playerA) == 1)
    }

    @Test(arguments: [FrameDuration.ms20, .ms10, .ms5])
    func threeSpeakersInTwoChannelsGiveExactlyTheExpectedContributions(frameDuration: FrameDuration) throws {
        let mixer = try Self.makeTwoChannelMixer(frameDuration: frameDuration)
        #expect(mixer.shouldDecode(sender: Self.playerA, channel: Self.lobby))
        #expect(mixer.shouldDecode(sender: Self.playerA, channel: Self.squad))
        #expect(!mixer.shouldDecode(sender: Self.playerC, channel: Self.squad))

        try Self.submit(mixer, 0.25, sender: Self.playerA, channel: Self.lobby)
        try Self.submit(mixer, 0.125, sender: Self.playerB, channel: Self.lobby)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.squad)
        // The muted player is not decoded: the mixer never asks for the frame.
        var asked = false
        let taken = mixer.fill(sender: Self.playerC, channel: Self.squad) { _ in asked = true }
        #expect(!taken && !asked)

        let output = try Self.mix(mixer)
        // A in the lobby 0.25 × 0.5, B 0.125 × 0.5, A in the squad 0.5 × 0.25; C contributes nothing.
        let expected: Float = 0.125 + 0.0625 + 0.125
        #expect(output.count == frameDuration.engineFrames)
        #expect(output.allSatisfy { $0 == expected })
        #expect(mixer.lastMixedStreamCount == 3)
        #expect(mixer.limiter.limitedSamples == 0)
        #expect(abs(mixer.outputMeter.peakDBFS - 20 * log10f(expected)) < 0.01)

        // Unmuting C in the squad adds exactly its share.
        try mixer.setPlayer(Self.playerC, muted: false, channel: Self.squad)
        try Self.submit(mixer, 0.25, sender: Self.playerA, channel: Self.lobby)
        try Self.submit(mixer, 0.125, sender: Self.playerB, channel: Self.lobby)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.squad)
        #expect(try Self.submit(mixer, 0.5, sender: Self.playerC, channel: Self.squad))
        #expect(try Self.mix(mixer).allSatisfy { $0 == expected + 0.125 })
    }

    @Test func volumeZeroSilencesAChannelAndItsStreamsAreNotDecoded() throws {
        let mixer = try Self.makeTwoChannelMixer()
        try mixer.setVolume(0, channel: Self.lobby)
        #expect(!mixer.shouldDecode(sender: Self.playerA, channel: Self.lobby))
        #expect(!mixer.shouldDecode(sender: Self.playerB, channel: Self.lobby))
        #expect(try !Self.submit(mixer, 0.25, sender: Self.playerA, channel: Self.lobby))
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.squad)
        #expect(try Self.mix(mixer).allSatisfy { $0 == 0.125 })

        try mixer.setVolume(0, channel: Self.squad)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.squad)
        #expect(try Self.mix(mixer).allSatisfy { $0 == 0 })
        #expect(mixer.lastMixedStreamCount == 0)
    }

    @Test func aChangeOfPlacementLevelIsRampedOverOneFrameAndSilenceStopsTheDecoding() throws {
        let mixer = try VoiceMixer()
        try mixer.addChannel(Self.lobby)
        try mixer.start(channel: Self.lobby)
        mixer.setPlacement(MixerPlacement(level: 0.5), sender: Self.playerA, channel: Self.lobby)
        try mixer.addStream(sender: Self.playerA, channel: Self.lobby)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.lobby)
        #expect(try Self.mix(mixer).allSatisfy { $0 == 0.25 }, "a stream starts at the level set before it")

        mixer.setPlacement(MixerPlacement(level: 1), sender: Self.playerA, channel: Self.lobby)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.lobby)
        let ramp = try Self.mix(mixer)
        let steps = zip(ramp, ramp.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 > 0 && $0 < 0.001 }, "rising a little every sample, no step")
        #expect(abs(ramp.last! - 0.5) < 1e-6)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.lobby)
        #expect(try Self.mix(mixer).allSatisfy { $0 == 0.5 })

        // Out of range: one frame fades out, then the stream is not decoded at all.
        mixer.setPlacement(MixerPlacement(level: 0), sender: Self.playerA, channel: Self.lobby)
        #expect(mixer.shouldDecode(sender: Self.playerA, channel: Self.lobby))
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.lobby)
        let fade = try Self.mix(mixer)
        #expect(fade.first! > 0.49 && abs(fade.last!) < 1e-6)
        #expect(!mixer.shouldDecode(sender: Self.playerA, channel: Self.lobby))
        #expect(try !Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.lobby))

        mixer.setPlacement(nil, sender: Self.playerA, channel: Self.lobby)
        #expect(mixer.placement(sender: Self.playerA, channel: Self.lobby) == .center)
    }

    @Test func aStereoMixPansPlacedPlayersWithEqualPowerAndKeepsTheRestCentred() throws {
        let mixer = try VoiceMixer(outputChannels: 2)
        try mixer.addChannel(Self.lobby)
        try mixer.start(channel: Self.lobby)
        try mixer.addStream(sender: Self.playerA, channel: Self.lobby)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.lobby)
        let centred = try Self.mix(mixer)
        #expect(centred.count == 2 * mixer.frameSamples)
        #expect(centred.allSatisfy { $0 == 0.5 }, "not placed: both sides as a mono mix has it")

        mixer.setPlacement(MixerPlacement(level: 1, pan: 1), sender: Self.playerA, channel: Self.lobby)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.lobby)
        _ = try Self.mix(mixer)  // the ramp
        try Self.submit(mixer, 0.25, sender: Self.playerA, channel: Self.lobby)
        let right = try Self.mix(mixer)
        let left = stride(from: 0, to: right.count, by: 2).map { right[$0] }
        let rightSide = stride(from: 1, to: right.count, by: 2).map { right[$0] }
        #expect(left.allSatisfy { abs($0) < 1e-6 }, "all right")
        #expect(rightSide.allSatisfy { abs($0 - 0.25 * Float(2).squareRoot()) < 1e-5 }, "the power of both sides")

        for pan: Float in [-1, -0.5, 0, 0.3, 1] {
            let (l, r) = MixerPlacement(level: 0.8, pan: pan).stereoGains
            #expect(abs(l * l + r * r - 2 * 0.64) < 1e-5, "equal power at \(pan)")
        }
        #expect(throws: MixerError.unsupportedChannels(6)) { try VoiceMixer(outputChannels: 6) }
    }

    @Test func aStoppedChannelContributesNothingUntilStartedAgain() throws {
        let mixer = try Self.makeTwoChannelMixer()
        try mixer.stop(channel: Self.squad)
        #expect(mixer.channel(Self.squad)?.isStarted == false)
        #expect(!mixer.shouldDecode(sender: Self.playerA, channel: Self.squad))
        try Self.submit(mixer, 0.25, sender: Self.playerA, channel: Self.lobby)
        #expect(try !Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.squad))
        #expect(try Self.mix(mixer).allSatisfy { $0 == 0.125 })

        // Stopping after the frame was handed in still keeps it out of the mix.
        try mixer.start(channel: Self.squad)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.squad)
        try mixer.stop(channel: Self.squad)
        #expect(try Self.mix(mixer).allSatisfy { $0 == 0 })

        try mixer.start(channel: Self.squad)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.squad)
        #expect(try Self.mix(mixer).allSatisfy { $0 == 0.125 })
    }

    @Test func aStreamWithoutAFrameThisRoundContributesNothing() throws {
        let mixer = try Self.makeTwoChannelMixer()
        try Self.submit(mixer, 0.25, sender: Self.playerA, channel: Self.lobby)
        _ = try Self.mix(mixer)
        // Nothing handed in: last round's frame is not mixed again.
        #expect(try Self.mix(mixer).allSatisfy { $0 == 0 })
        #expect(mixer.lastMixedStreamCount == 0)
    }

    @Test func theLimiterEngagesOnlyWhenTheSumNearsFullScale() throws {
        let mixer = try VoiceMixer()
        try mixer.addChannel(Self.lobby)
        try mixer.start(channel: Self.lobby)
        let speakers = (1...8).map { MediaID(rawValue: UInt32($0)) }
        for speaker in speakers { try mixer.addStream(sender: speaker, channel: Self.lobby) }

        // Eight speakers at 0.1 each sum to 0.8 (-1.9 dBFS): below the threshold, untouched.
        for _ in 0..<10 {
            for speaker in speakers { try Self.submit(mixer, 0.1, sender: speaker, channel: Self.lobby) }
            let quiet = try Self.mix(mixer)
            let exact = quiet.allSatisfy { $0 == Float(0.1) * 1 + 0.1 + 0.1 + 0.1 + 0.1 + 0.1 + 0.1 + 0.1 }
            #expect(exact)
        }
        #expect(mixer.limiter.limitedSamples == 0)

        // Eight at 0.9 would sum to 7.2: the output stays inside (-1, 1).
        var peak: Float = 0
        for _ in 0..<50 {
            for speaker in speakers { try Self.submit(mixer, 0.9, sender: speaker, channel: Self.lobby) }
            peak = max(peak, try Self.mix(mixer).map(abs).max()!)
        }
        #expect(peak < 1)
        #expect(mixer.limiter.limitedSamples > 0)
        #expect(mixer.outputMeter.peakDBFS < 0)
    }

    @Test func streamsCanBeRemovedAndChannelsTakeTheirStreamsWithThem() throws {
        let mixer = try Self.makeTwoChannelMixer()
        mixer.removeStream(sender: Self.playerB, channel: Self.lobby)
        #expect(try !Self.submit(mixer, 0.125, sender: Self.playerB, channel: Self.lobby))
        try Self.submit(mixer, 0.25, sender: Self.playerA, channel: Self.lobby)
        try Self.submit(mixer, 0.5, sender: Self.playerA, channel: Self.squad)
        #expect(try Self.mix(mixer).allSatisfy { $0 == 0.25 })

        mixer.removeChannel(Self.squad)
        #expect(mixer.streamKeys == [MixerStreamKey(sender: Self.playerA, channel: Self.lobby)])
        #expect(!mixer.shouldDecode(sender: Self.playerA, channel: Self.squad))
    }

    @Test func badRequestsGetErrorsThatSayWhatToDo() throws {
        let mixer = try Self.makeTwoChannelMixer()
        #expect(throws: MixerError.volumeOutOfRange(1.5)) { try mixer.setVolume(1.5, channel: Self.lobby) }
        #expect(throws: MixerError.self) { try mixer.setVolume(.nan, channel: Self.lobby) }
        #expect(throws: MixerError.unknownChannel(9)) { try mixer.start(channel: 9) }
        #expect(throws: MixerError.unknownChannel(9)) { try mixer.addStream(sender: 1, channel: 9) }
        #expect(throws: MixerError.duplicateChannel(Self.lobby)) { try mixer.addChannel(Self.lobby) }
        #expect(throws: MixerError.duplicateStream(sender: Self.playerA, channel: Self.lobby)) {
            try mixer.addStream(sender: Self.playerA, channel: Self.lobby)
        }
        var short = [Float](repeating: 0, count: 10)
        #expect(throws: MixerError.wrongFrameLength(got: 10, expected: 960)) {
            try short.withUnsafeMutableBufferPointer { try mixer.mix(into: $0) }
        }
        #expect(MixerError.unknownChannel(9).description.contains("addChannel"))
        #expect(throws: MixerError.self) { try VoiceMixer(limiter: SoftLimiter.Configuration(ceiling: 2)) }
    }
}
