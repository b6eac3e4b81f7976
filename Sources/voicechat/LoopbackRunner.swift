import VoiceCodec
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Drives a loopback: pulls frames from the input, runs them through the pipeline and pushes
/// them to the output, at the devices' pace or, between two files, as fast as possible.
struct LoopbackRunner {
    let input: any AudioInput
    let output: any AudioOutput
    let maximumSeconds: Double?

    /// How long to sleep while waiting for a real-time device: a fraction of the shortest
    /// frame, so that waiting adds no audible delay.
    private static let pollNanoseconds = 1_000_000

    func run(pipeline: inout LoopbackPipeline, display: MeterDisplay) throws -> LoopbackSummary {
        let frameFrames = pipeline.frameFrames
        let inputChannels = input.format.channels
        let outputChannels = output.format.channels
        var captured = [Float](repeating: 0, count: frameFrames * inputChannels)
        var mono = [Float](repeating: 0, count: frameFrames)
        var decoded = [Float](repeating: 0, count: frameFrames)
        var playable = [Float](repeating: 0, count: frameFrames * outputChannels)
        let maximumFrames = maximumSeconds.map { Int($0 * Double(engineSampleRate)) / frameFrames }

        try input.start()
        try output.start()
        defer {
            input.stop()
            output.stop()
        }
        var stoppedBy = LoopbackSummary.Ending.endOfInput
        frameLoop: while true {
            if InterruptSignal.wasReceived {
                stoppedBy = .interrupted
                break
            }
            if let maximumFrames, pipeline.frames >= maximumFrames {
                stoppedBy = .duration
                break
            }
            // Gather one whole frame from the input.
            var gathered = 0
            while gathered < frameFrames {
                let got = captured.withUnsafeMutableBufferPointer { buffer in
                    input.read(into: UnsafeMutableBufferPointer(rebasing: buffer[(gathered * inputChannels)...]))
                }
                gathered += got
                if gathered < frameFrames {
                    if input.isExhausted { break frameLoop }
                    if InterruptSignal.wasReceived { continue frameLoop }
                    if input.pacing == .realTime { Self.pause() }
                }
            }
            _ = captured.withUnsafeBufferPointer { source in
                mono.withUnsafeMutableBufferPointer {
                    SampleConversion.downmix(source, channels: inputChannels, to: $0)
                }
            }
            try mono.withUnsafeBufferPointer { frame in
                try decoded.withUnsafeMutableBufferPointer { try pipeline.process(frame, into: $0) }
            }
            _ = decoded.withUnsafeBufferPointer { source in
                playable.withUnsafeMutableBufferPointer {
                    SampleConversion.upmix(source, channels: outputChannels, to: $0)
                }
            }
            // Hand the frame to the output, waiting for room if it is a real-time device.
            var written = 0
            while written < frameFrames {
                written += playable.withUnsafeBufferPointer { buffer in
                    output.write(UnsafeBufferPointer(rebasing: buffer[(written * outputChannels)...]))
                }
                if written < frameFrames {
                    if InterruptSignal.wasReceived { break }
                    Self.pause()
                }
            }
            display.update(
                audioSeconds: Double(pipeline.frames * frameFrames) / Double(engineSampleRate),
                input: pipeline.inputMeter, output: pipeline.outputMeter)
        }
        return LoopbackSummary(
            frames: pipeline.frames, frameFrames: frameFrames, packetBytes: pipeline.packetBytes,
            encodeNanoseconds: pipeline.encodeNanoseconds, decodeNanoseconds: pipeline.decodeNanoseconds,
            codecDelayFrames: pipeline.codecDelayFrames, ending: stoppedBy)
    }

    private static func pause() {
        var interval = timespec(tv_sec: 0, tv_nsec: pollNanoseconds)
        nanosleep(&interval, nil)
    }
}
