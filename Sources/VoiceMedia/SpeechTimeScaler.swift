/// A receive stream's decoded audio on its way to the mixer (with
/// `JitterBufferConfiguration.timeStretching`), and the time-scale modification that moves its
/// playout by a pitch period instead of a whole frame: WSOLA (waveform-similarity overlap-add), as
/// NetEq's accelerate. `shorten` removes one stretch of the waiting audio: it finds the length at
/// which the waveform repeats itself best (a pitch period, or a multiple of it, in voiced speech)
/// and joins the two sides with a short crossfade, so that nothing audible marks the seam.
///
/// Hand-written rather than a library's: it runs per frame on the engine thread, so every buffer
/// is taken in `init`. One thread at a time, as its stream.
final class SpeechTimeScaler {
    /// The shortest and longest stretch removed: a pitch period at 400 Hz and at 80 Hz, 48 kHz samples.
    static let shortestStretch = 120
    static let longestStretch = 600
    /// The crossfade, and the stretch of waveform compared to find the seam: 5 ms.
    static let overlap = 240
    /// A seam inside speech needs the two sides this alike (normalized cross-correlation), as
    /// voiced speech a pitch period apart is; a quiet stretch takes any seam.
    static let similarEnough: Float = 0.85
    /// Under this mean power (-45 dBFS) the stretch counts as quiet.
    static let quietPower: Float = 3.16e-5
    /// The coarse search looks at every 4th sample (12 kHz), then refines around the best.
    private static let decimation = 4

    /// The audio waiting to play, oldest first.
    private let samples: UnsafeMutableBufferPointer<Float>
    /// The count of `samples` waiting.
    private(set) var count = 0
    /// `samples` averaged over each `decimation`, for the coarse search.
    private let coarse: UnsafeMutableBufferPointer<Float>
    /// The frame `takeFrame` hands out.
    private let frame: UnsafeMutableBufferPointer<Float>

    /// `frameSamples`: the decoder's frame; the buffer holds up to two of them.
    init(frameSamples: Int) {
        let capacity = 2 * frameSamples
        samples = .allocate(capacity: capacity)
        samples.initialize(repeating: 0)
        coarse = .allocate(capacity: capacity / Self.decimation + 1)
        coarse.initialize(repeating: 0)
        frame = .allocate(capacity: frameSamples)
        frame.initialize(repeating: 0)
    }

    deinit {
        samples.deallocate()
        coarse.deallocate()
        frame.deallocate()
    }

    /// Moves the oldest frame out (silence after what waits); valid until the next call.
    func takeFrame() -> UnsafeBufferPointer<Float> {
        take(into: frame)
        return UnsafeBufferPointer(frame)
    }

    /// Appends decoded audio after what waits. The caller takes a frame out before it appends
    /// more than the buffer holds (`pullFrame` keeps under a frame waiting between decodes).
    func append(_ frame: UnsafeBufferPointer<Float>) {
        precondition(count + frame.count <= samples.count, "SpeechTimeScaler overfilled")
        _ = UnsafeMutableBufferPointer(rebasing: samples[count..<count + frame.count]).update(fromContentsOf: frame)
        count += frame.count
    }

    /// Moves the oldest `output.count` samples (as many as wait, silence after) into `output`.
    func take(into output: UnsafeMutableBufferPointer<Float>) {
        let taken = min(count, output.count)
        _ = UnsafeMutableBufferPointer(rebasing: output[0..<taken]).update(
            fromContentsOf: UnsafeBufferPointer(rebasing: samples[0..<taken]))
        UnsafeMutableBufferPointer(rebasing: output[taken...]).update(repeating: 0)
        if taken < count {
            samples.baseAddress!.update(from: samples.baseAddress! + taken, count: count - taken)
        }
        count -= taken
    }

    /// Drops what waits: the stream is not heard, or starts over.
    func removeAll() { count = 0 }

    /// Removes one stretch of at most `maximum` samples from what waits; returns its length, or
    /// 0 when no seam inside speech is good enough (or too little waits to look for one).
    func shorten(maximum: Int) -> Int {
        guard let length = seam(maximum: maximum) else { return 0 }
        let base = samples.baseAddress!
        for index in 0..<Self.overlap {
            let fadeIn = Float(index + 1) / Float(Self.overlap + 1)
            base[index] = base[index] * (1 - fadeIn) + base[length + index] * fadeIn
        }
        let rest = count - length - Self.overlap
        (base + Self.overlap).update(from: base + length + Self.overlap, count: rest)
        count -= length
        return length
    }

    /// The stretch length at which the waiting waveform repeats best, from the start of what
    /// waits, at most `maximum`; nil when too little waits or no length is alike enough in speech.
    private func seam(maximum: Int) -> Int? {
        let longest = min(maximum, Self.longestStretch, count - Self.overlap)
        guard longest >= Self.shortestStretch else { return nil }
        let factor = Self.decimation
        let coarseCount = (longest + Self.overlap) / factor
        let base = samples.baseAddress!
        for index in 0..<coarseCount {
            var sum: Float = 0
            for offset in 0..<factor { sum += base[index * factor + offset] }
            coarse[index] = sum / Float(factor)
        }
        let window = Self.overlap / factor
        var bestLag = Self.shortestStretch / factor
        var bestScore = -Float.infinity
        for lag in (Self.shortestStretch / factor)...(longest / factor) {
            let score = Self.similarity(coarse.baseAddress!, coarse.baseAddress! + lag, count: window)
            if score > bestScore {
                bestScore = score
                bestLag = lag
            }
        }
        var best = bestLag * factor
        var bestCorrelation = -Float.infinity
        let lowest = max(Self.shortestStretch, best - factor + 1)
        let highest = min(longest, best + factor - 1)
        for length in lowest...highest {
            let correlation = Self.similarity(base, base + length, count: Self.overlap)
            if correlation > bestCorrelation {
                bestCorrelation = correlation
                best = length
            }
        }
        if bestCorrelation >= Self.similarEnough { return best }
        return meanPower(count: best + Self.overlap) < Self.quietPower ? best : nil
    }

    private func meanPower(count: Int) -> Float {
        var sum: Float = 0
        for index in 0..<count { sum += samples[index] * samples[index] }
        return sum / Float(count)
    }

    /// Normalized cross-correlation of two stretches of `count` samples.
    private static func similarity(_ first: UnsafePointer<Float>, _ second: UnsafePointer<Float>, count: Int)
        -> Float
    {
        var cross: Float = 0
        var firstPower: Float = 0
        var secondPower: Float = 0
        for index in 0..<count {
            cross += first[index] * second[index]
            firstPower += first[index] * first[index]
            secondPower += second[index] * second[index]
        }
        return cross / (firstPower * secondPower + 1e-12).squareRoot()
    }
}
