import Foundation
import Testing
import VoiceCore
import VoiceDevices
import VoiceSimulation
import VoiceTestHarness

/// Real-time pacing: ALSA's `jack` plugin on a JACK server with the `dummy` backend, which
/// consumes and produces audio at 48 kHz by the clock. The speaker's output port is wired
/// to the microphone's input port, so what is played comes back.
extension ALSADeviceTests {
    @Suite struct JACKDevices {
        init() { ALSATestEnvironment.configured }

        /// CI installs jackd2; there the test must run (and fail loudly if jackd is missing).
        static let runnable = JACKServer.isInstalled || ProcessInfo.processInfo.environment["CI"] == "true"

        /// What one play-and-capture round through the JACK loopback measured.
        struct LoopbackRound {
            var elapsed: TimeInterval
            var mismatches: Int
            var summary: String
            /// Whether the machine kept real time during the round.
            var machine: MachineStallReport
        }

        /// On a shared host the JACK server (with real-time priority where the process may have
        /// it, without where a container cannot grant it) may now and then miss a cycle and drop a
        /// period between the two ports, with no error anywhere: that is the server's hiccup, not
        /// the devices'. Up to three
        /// rounds are played; pacing must hold in every round and at least one round must carry
        /// every sample bit for bit, which shows the devices themselves lose and change nothing.
        /// A host that takes the machine's CPUs away stalls the server for longer than any buffer
        /// holds: when every round that lost samples ran while the machine did not keep real time
        /// (see `MachineStallWatch`), the loss is reported as a known issue naming the stalls.
        @Test(
            .enabled(if: runnable, "jackd and jack_lsp are not installed (apt-get install jackd2 libasound2-plugins)"))
        func playbackIsPacedAndLoopsBackIntact() throws {
            let server = try JACKServer(
                name: ALSATestEnvironment.jackServerName, logDirectory: ALSATestEnvironment.directory)
            defer { server.stop() }

            var rounds: [LoopbackRound] = []
            while rounds.count < 3, rounds.last?.mismatches != 0 {
                rounds.append(try loopbackRound(server: server, seed: UInt64(7 + rounds.count)))
            }
            for round in rounds { print(round.summary) }
            #expect(
                rounds.allSatisfy { $0.elapsed > 1.5 && $0.elapsed < 4 }, "2 s of audio took \(rounds.map(\.elapsed)) s"
            )
            let lossOnAQuietMachine = rounds.contains { $0.mismatches != 0 && $0.machine.keptRealTime }
            withKnownIssue(
                "the machine did not keep real time: \(rounds.map(\.machine.description))", isIntermittent: true
            ) {
                #expect(rounds.last?.mismatches == 0, "no round came back intact: \(rounds.map(\.summary))")
            } when: {
                !lossOnAQuietMachine
            }
        }

        private func loopbackRound(server: JACKServer, seed: UInt64) throws -> LoopbackRound {
            let frames = 2 * 48_000
            // Float in, float out with no conversion anywhere on the way (plug passes
            // FLOAT_LE through to JACK's native float), so every sample must come back
            // bit for bit. Never zero, so the first played sample is found in the capture.
            var generator = SeededRandom(seed: seed)
            let signal = (0..<frames).map { _ in
                Float(generator.next() % 16_384 + 1) / 32_768 * (generator.next() % 2 == 0 ? 1 : -1)
            }

            let configuration = ALSADeviceConfiguration(
                sampleFormat: .float32, periodFrames: 480, bufferFrames: 8 * 480, ringFrames: 131_072)
            var speakerConfiguration = configuration
            speakerConfiguration.name = "vc_jspk"
            var microphoneConfiguration = configuration
            microphoneConfiguration.name = "vc_jmic"
            // The speaker's JACK client must exist before the microphone connects to its port.
            let speaker = try ALSAPlaybackDevice(speakerConfiguration)
            let microphone = try ALSACaptureDevice(microphoneConfiguration)
            #expect(speaker.granted.sampleRate == 48_000)

            #expect(signal.withUnsafeBufferPointer { speaker.write($0) } == frames)
            let watch = MachineStallWatch()
            try microphone.start()
            let started = Date()
            try speaker.start()
            speaker.stop()
            let elapsed = Date().timeIntervalSince(started)
            usleep(200_000)
            microphone.stop()
            let machine = watch.finish()

            #expect(speaker.queuedFrames == 0)
            #expect(speaker.statistics.deviceFrames >= frames)
            #expect(speaker.failure == nil)
            #expect(microphone.failure == nil)
            #expect(microphone.statistics.ringStarvedFrames == 0)

            var captured = [Float](repeating: 0, count: microphone.availableToRead)
            _ = captured.withUnsafeMutableBufferPointer { microphone.read(into: $0) }
            let start = try #require(
                captured.firstIndex { $0 != 0 }, "nothing came back; ports: \(server.connections())")
            try #require(captured.count - start >= frames, "captured \(captured.count - start) of \(frames) frames")
            let returned = captured[start..<(start + frames)]
            let mismatches = zip(returned, signal).filter { $0 != $1 }.count
            let summary =
                "JACK loopback: 2.000 s played in \(String(format: "%.3f", elapsed)) s, \(mismatches) of \(frames) "
                + "samples differ; speaker \(speaker.statistics), microphone \(microphone.statistics); \(machine)"
            return LoopbackRound(elapsed: elapsed, mismatches: mismatches, summary: summary, machine: machine)
        }

        /// The raw `jack` PCM (no `plug` in front) takes only float samples, one channel per
        /// port and the server's rate: it refuses the rest, and grants its own rate when
        /// asked for another.
        @Test(
            .enabled(if: runnable, "jackd and jack_lsp are not installed (apt-get install jackd2 libasound2-plugins)"))
        func rawJACKDeviceRefusesWhatItCannotDo() throws {
            let server = try JACKServer(
                name: ALSATestEnvironment.jackServerName, logDirectory: ALSATestEnvironment.directory)
            defer { server.stop() }

            let stereo = #expect(throws: AudioDeviceError.self) {
                try ALSAPlaybackDevice(ALSADeviceConfiguration(name: "vc_jackspk", channels: 2, sampleFormat: .float32))
            }
            #expect(stereo?.code == .unsupportedConfiguration)
            #expect(stereo?.reason.contains("channel count 2") == true)

            let int16 = #expect(throws: AudioDeviceError.self) {
                try ALSAPlaybackDevice(ALSADeviceConfiguration(name: "vc_jackspk", sampleFormat: .int16))
            }
            #expect(int16?.code == .unsupportedConfiguration)
            #expect(int16?.reason.contains("sample format S16_LE") == true)
            #expect(int16?.description.contains("vc_jackspk") == true)

            let nearest = try ALSAPlaybackDevice(
                ALSADeviceConfiguration(name: "vc_jackspk", sampleRate: 44_100, sampleFormat: .float32))
            #expect(nearest.granted.sampleRate == 48_000)
        }
    }
}
