import Foundation
import Testing
import VoiceCore
import VoiceDevices

/// Every test that opens ALSA devices, one at a time: they share alsa-lib's process-wide
/// configuration (see `ALSATestEnvironment`) and the JACK test starts a server.
@Suite(.serialized)
struct ALSADeviceTests {
    init() {
        ALSATestEnvironment.configured
    }

    /// Polls `condition` until it holds or `seconds` pass; returns whether it held.
    static func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }
}

extension ALSADeviceTests {
    @Suite struct Errors {
        init() { ALSATestEnvironment.configured }

        @Test func unknownCaptureDeviceIsNotFoundAndNamed() {
            let error = #expect(throws: AudioDeviceError.self) {
                try ALSACaptureDevice(ALSADeviceConfiguration(name: "vc_no_such_pcm"))
            }
            #expect(error?.code == .notFound)
            #expect(error?.description.contains("vc_no_such_pcm") == true)
            #expect(error?.description.contains("aplay -L") == true)
        }

        @Test func unknownPlaybackDeviceIsNotFoundAndNamed() {
            let error = #expect(throws: AudioDeviceError.self) {
                try ALSAPlaybackDevice(ALSADeviceConfiguration(name: "vc_no_such_speaker"))
            }
            #expect(error?.code == .notFound)
            #expect(error?.device == "vc_no_such_speaker")
            #expect(error?.description.contains("vc_no_such_speaker") == true)
        }

        @Test(
            arguments: [
                ALSADeviceConfiguration(name: "null", channels: 7),
                ALSADeviceConfiguration(name: "null", channels: 0),
                ALSADeviceConfiguration(name: "null", periodFrames: 0),
                ALSADeviceConfiguration(name: "null", periodFrames: 480, bufferFrames: 480),
                ALSADeviceConfiguration(name: "null", sampleRate: 0),
                ALSADeviceConfiguration(name: "null", ringFrames: 0),
                ALSADeviceConfiguration(name: ""),
            ])
        func nonsenseConfigurationIsInvalidArgument(_ configuration: ALSADeviceConfiguration) {
            let captureError = #expect(throws: AudioDeviceError.self) {
                try ALSACaptureDevice(configuration)
            }
            #expect(captureError?.code == .invalidArgument)
            let playbackError = #expect(throws: AudioDeviceError.self) {
                try ALSAPlaybackDevice(configuration)
            }
            #expect(playbackError?.code == .invalidArgument)
            #expect(playbackError?.suggestion != nil)
        }

        @Test func sensibleConfigurationOpensNull() throws {
            let configuration = ALSADeviceConfiguration(name: "null", channels: 2, sampleFormat: .float32)
            let playback = try ALSAPlaybackDevice(configuration)
            #expect(playback.granted.sampleRate == 48_000)
            #expect(playback.format == AudioFormat(sampleRate: 48_000, channels: 2))
            #expect(playback.pacing == .realTime)
        }
    }

    @Suite struct Listing {
        init() { ALSATestEnvironment.configured }

        @Test func listsNullAndTheConfiguredPCMs() throws {
            let devices = try ALSADeviceList.pcmDevices()
            let names = Set(devices.map(\.name))
            #expect(names.isSuperset(of: ["null", "vc_mic_s16", "vc_spk_int16_1", "vc_jspk", "vc_jmic"]))
            let null = try #require(devices.first { $0.name == "null" })
            #expect(null.direction == .both)
            #expect(!null.description.isEmpty)
        }
    }
}
