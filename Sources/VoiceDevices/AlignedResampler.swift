import VoiceCodec
import VoiceCore

/// A rate conversion whose output lines up with its input in time and loses nothing at the end.
///
/// speexdsp's filter delays the signal by `inputLatency()` input frames and keeps the last
/// frames of input in its history. Files are converted as a whole, so both are undone here:
/// the first output frames, which only carry the delay, are dropped, and `finish()` pushes
/// silence through the filter until the output is as long as the input at the new rate. Output
/// frame `n` then corresponds to input time `n / outputRate` seconds.
///
/// The delay is rarely a whole number of output frames (44.1 → 48 kHz: 43.5), and dropping a
/// rounded count would leave the output up to half a frame early or late. So the filter is
/// first fed just enough silent input frames that the delay becomes a whole number of output
/// frames, and exactly that many are dropped.
///
/// Equal rates pass samples through untouched, so a 48 kHz float file stays bit-exact.
/// Buffers are allocated once at creation; `process` and `finish` neither allocate nor lock.
/// Thread contract: one thread at a time.
struct AlignedResampler: ~Copyable {
    let channels: Int
    let inputRate: Int
    let outputRate: Int
    private var resampler: Resampler?
    private let chunkFrames: Int
    private let output: UnsafeMutableBufferPointer<Float>
    private let silence: UnsafeMutableBufferPointer<Float>
    private let delayFrames: Int
    /// Silent input frames fed before the signal, to make `delayFrames` whole.
    private let paddingFrames: Int
    private var delayFramesToDrop: Int
    private var consumedFrames = 0
    private var emittedFrames = 0

    init(channels: Int, inputRate: Int, outputRate: Int, chunkFrames: Int = 4_096) throws(CodecError) {
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.chunkFrames = chunkFrames
        if inputRate == outputRate {
            resampler = nil
            output = UnsafeMutableBufferPointer(start: nil, count: 0)
            silence = UnsafeMutableBufferPointer(start: nil, count: 0)
            delayFrames = 0
            paddingFrames = 0
        } else {
            var converter = try Resampler(channels: channels, inputRate: inputRate, outputRate: outputRate)
            // Output frames per input frame is num / den in lowest terms; a delay of a multiple
            // of `den` input frames is a whole number of output frames.
            var (a, b) = (inputRate, outputRate)
            while b != 0 { (a, b) = (b, a % b) }
            let (num, den) = (outputRate / a, inputRate / a)
            let latency = converter.inputLatency()
            paddingFrames = (den - latency % den) % den
            delayFrames = (latency + paddingFrames) / den * num
            output = .allocate(capacity: converter.outputCapacity(forInputFrames: chunkFrames) * channels)
            output.initialize(repeating: 0)
            silence = .allocate(capacity: chunkFrames * channels)
            silence.initialize(repeating: 0)
            resampler = consume converter
        }
        delayFramesToDrop = delayFrames
        feedPadding()
    }

    deinit {
        output.deallocate()
        silence.deallocate()
    }

    /// Converts `input` (whole interleaved frames) and hands every finished piece of output to
    /// `emit`, which must copy it before returning.
    mutating func process(_ input: UnsafeBufferPointer<Float>, emit: (UnsafeBufferPointer<Float>) -> Void) {
        guard resampler != nil else {
            consumedFrames += input.count / channels
            emittedFrames += input.count / channels
            emit(input)
            return
        }
        var offset = 0
        while offset < input.count {
            let end = min(input.count, offset + chunkFrames * channels)
            let (consumed, produced) = resampler!.process(
                UnsafeBufferPointer(rebasing: input[offset..<end]), into: output)
            consumedFrames += consumed
            offset += consumed * channels
            deliver(produced, limit: Int.max, emit: emit)
            if consumed == 0 && produced == 0 { break }
        }
    }

    /// Flushes the filter: emits the rest of the output, so that everything emitted since the
    /// start (or the last `finish`) is `input frames × outputRate / inputRate` frames, rounded.
    /// Afterwards the converter starts afresh, as if newly created.
    mutating func finish(emit: (UnsafeBufferPointer<Float>) -> Void) {
        defer {
            consumedFrames = 0
            emittedFrames = 0
            delayFramesToDrop = delayFrames
        }
        guard resampler != nil else { return }
        let target = (consumedFrames * outputRate + inputRate / 2) / inputRate
        while emittedFrames < target {
            let (_, produced) = resampler!.process(UnsafeBufferPointer(silence), into: output)
            if produced == 0 { break }
            deliver(produced, limit: target - emittedFrames, emit: emit)
        }
        resampler!.reset()
        feedPadding()
    }

    /// Feeds the silence that makes the delay whole; its output is all part of the delay.
    private mutating func feedPadding() {
        var remaining = paddingFrames
        while remaining > 0 {
            let frames = min(remaining, chunkFrames)
            let (consumed, produced) = resampler!.process(
                UnsafeBufferPointer(rebasing: silence[0..<frames * channels]), into: output)
            delayFramesToDrop -= produced
            remaining -= consumed
        }
    }

    private mutating func deliver(_ produced: Int, limit: Int, emit: (UnsafeBufferPointer<Float>) -> Void) {
        let skipped = min(delayFramesToDrop, produced)
        delayFramesToDrop -= skipped
        let frames = min(produced - skipped, limit)
        guard frames > 0 else { return }
        emittedFrames += frames
        emit(UnsafeBufferPointer(rebasing: output[skipped * channels..<(skipped + frames) * channels]))
    }
}
