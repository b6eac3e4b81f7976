import Foundation
import VoiceCore

/// What a loopback run did, for the closing report.
struct LoopbackSummary {
    enum Ending: String {
        case endOfInput = "end of input"
        case duration = "duration reached"
        case interrupted = "interrupted"
    }

    var frames: Int
    var frameFrames: Int
    var packetBytes: Int
    var encodeNanoseconds: MediaTime
    var decodeNanoseconds: MediaTime
    var codecDelayFrames: Int
    var ending: Ending

    var audioSeconds: Double { Double(frames * frameFrames) / Double(engineSampleRate) }

    func report(input: AudioDeviceStatistics, output: AudioDeviceStatistics) -> String {
        let frameMilliseconds = Double(frameFrames) * 1_000 / Double(engineSampleRate)
        let bitrate = audioSeconds > 0 ? Double(packetBytes * 8) / audioSeconds : 0
        let encodeMicroseconds = frames > 0 ? Double(encodeNanoseconds) / Double(frames) / 1_000 : 0
        let decodeMicroseconds = frames > 0 ? Double(decodeNanoseconds) / Double(frames) / 1_000 : 0
        let realTimeFactor =
            encodeMicroseconds + decodeMicroseconds > 0
            ? frameMilliseconds * 1_000 / (encodeMicroseconds + decodeMicroseconds) : 0
        return """
            stopped: \(ending.rawValue)
            audio: \(fixed(audioSeconds, 2)) s in \(frames) frames of \(fixed(frameMilliseconds, 1)) ms
            opus: \(fixed(bitrate / 1_000, 1)) kbit/s actual, mean packet \(frames > 0 ? packetBytes / frames : 0) bytes, \
            codec delay \(fixed(Double(codecDelayFrames) * 1_000 / Double(engineSampleRate), 1)) ms
            cost: encode \(fixed(encodeMicroseconds, 1)) µs + decode \(fixed(decodeMicroseconds, 1)) µs per frame \
            (\(fixed(realTimeFactor, 0))× real time)
            devices: capture xruns \(input.xruns), dropped \(input.ringStarvedFrames) frames; \
            playback xruns \(output.xruns), silence inserted \(output.ringStarvedFrames) frames
            """
    }

    private func fixed(_ value: Double, _ places: Int) -> String {
        String(format: "%.\(places)f", value)
    }
}
