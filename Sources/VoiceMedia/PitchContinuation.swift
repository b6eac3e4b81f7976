import Glibc

/// Concealment of a hole in voiced speech, as NetEq's expand and merge: it continues the last
/// pitch period of what played, fading out, and crossfades into the first frame decoded after the
/// hole. Unvoiced or quiet audio has no period to continue; the codec's own concealment keeps it.
///
/// Hand-written rather than a library's: it runs on the engine thread, so every buffer is taken
/// in `init`. One thread at a time, as its stream.
final class PitchContinuation {
    /// The shortest and longest period looked for: 400 Hz and 60 Hz, 48 kHz samples.
    static let shortestPeriod = 120
    static let longestPeriod = 800
    /// The stretch of history compared with itself a period earlier: 20 ms.
    static let window = 960
    /// A period is continued only where the history repeats itself this well (normalized
    /// cross-correlation): voiced speech.
    static let voicedEnough: Float = 0.7
    /// Under this mean power (-50 dBFS) there is nothing to continue.
    static let quietPower: Float = 1e-5
    /// The crossfade from the codec's concealment into the continuation and from the continuation
    /// into the first frame decoded after the hole: 5 ms.
    static let crossfade = 240
    private static let decimation = 4

    /// How long the continuation takes to fade to silence, as shipped.
    static let fadeMilliseconds = 120.0
    /// How long the continuation takes to fade to silence.
    let fadeSamples: Int
    /// What played last, oldest first: the window and a longest period before it.
    private let history: UnsafeMutableBufferPointer<Float>
    private let coarse: UnsafeMutableBufferPointer<Float>
    /// One period, its end blended into the samples before its start so that it repeats without a seam.
    private let cycle: UnsafeMutableBufferPointer<Float>
    /// A raised-cosine ramp from 0 to 1 across the crossfade.
    private let rise: UnsafeMutableBufferPointer<Float>
    private var period = 0
    private var phase = 0
    private var produced = 0
    /// Whether the frame played last was (partly) this continuation: the next decoded frame merges.
    private(set) var isContinuing = false

    init(fadeMilliseconds: Double) {
        fadeSamples = max(Int(fadeMilliseconds * 48), 1)
        let length = Self.window + Self.longestPeriod
        history = .allocate(capacity: length)
        history.initialize(repeating: 0)
        coarse = .allocate(capacity: length / Self.decimation)
        coarse.initialize(repeating: 0)
        cycle = .allocate(capacity: Self.longestPeriod)
        cycle.initialize(repeating: 0)
        rise = .allocate(capacity: Self.crossfade)
        for index in 0..<Self.crossfade {
            rise.initializeElement(
                at: index, to: Float(0.5 - 0.5 * cos(Double.pi * (Double(index) + 0.5) / Double(Self.crossfade))))
        }
    }

    deinit {
        history.deallocate()
        coarse.deallocate()
        cycle.deallocate()
        rise.deallocate()
    }

    /// Appends the frame that played to the history.
    func notePlayed(_ frame: UnsafeBufferPointer<Float>) {
        let length = history.count
        if frame.count >= length {
            _ = history.update(fromContentsOf: UnsafeBufferPointer(rebasing: frame[(frame.count - length)...]))
        } else {
            history.baseAddress!.update(from: history.baseAddress! + frame.count, count: length - frame.count)
            _ = UnsafeMutableBufferPointer(rebasing: history[(length - frame.count)...]).update(fromContentsOf: frame)
        }
    }

    /// Forgets the hole: what plays next is not continued from it (silence, or a stream started over).
    func stop() {
        isContinuing = false
    }

    /// Overwrites `frame`, the codec's concealment of a missing frame, with the continuation of
    /// the last period, crossfading from the codec's at the start of a hole. Returns false, leaving
    /// the codec's, when what played last is not voiced speech.
    func conceal(into frame: UnsafeMutableBufferPointer<Float>) -> Bool {
        if !isContinuing {
            guard start() else { return false }
            for index in 0..<frame.count {
                let fade = index < Self.crossfade ? rise[index] : 1
                frame[index] = (1 - fade) * frame[index] + fade * next()
            }
            isContinuing = true
            return true
        }
        for index in 0..<frame.count { frame[index] = next() }
        return true
    }

    /// Crossfades the continuation into `frame`, the first decoded after the hole.
    func merge(into frame: UnsafeMutableBufferPointer<Float>) {
        guard isContinuing else { return }
        isContinuing = false
        for index in 0..<min(Self.crossfade, frame.count) {
            let fade = rise[index]
            frame[index] = (1 - fade) * next() + fade * frame[index]
        }
    }

    private func next() -> Float {
        let gain = max(0, 1 - Float(produced) / Float(fadeSamples))
        let sample = cycle[phase] * gain
        phase = phase + 1 == period ? 0 : phase + 1
        produced += 1
        return sample
    }

    /// Finds the period of the history's end and builds the cycle; false when it is not voiced.
    private func start() -> Bool {
        let length = history.count
        var power: Float = 0
        for index in (length - Self.window)..<length { power += history[index] * history[index] }
        guard power / Float(Self.window) >= Self.quietPower else { return false }
        guard let (found, similarity) = findPeriod(), similarity >= Self.voicedEnough else { return false }
        period = found
        // The cycle is the last period; its last quarter fades into the period before it, so that
        // its end leads into its start as the history did.
        let blend = period / 4
        for index in 0..<period {
            let recent = history[length - period + index]
            let tail = index - (period - blend)
            if tail >= 0 {
                let fade = (Float(tail) + 0.5) / Float(blend)
                cycle[index] = (1 - fade) * recent + fade * history[length - 2 * period + index]
            } else {
                cycle[index] = recent
            }
        }
        phase = 0
        produced = 0
        return true
    }

    /// The lag at which the last `window` samples best match those a lag earlier, searched at
    /// 12 kHz and refined at 48 kHz, preferring the shortest lag nearly as good (not a multiple).
    private func findPeriod() -> (period: Int, similarity: Float)? {
        let step = Self.decimation
        for index in 0..<coarse.count {
            var sum: Float = 0
            for offset in 0..<step { sum += history[index * step + offset] }
            coarse[index] = sum
        }
        let end = coarse.count
        let window = Self.window / step
        var best = 0
        var bestSimilarity: Float = -1
        for lag in (Self.shortestPeriod / step)...(Self.longestPeriod / step) {
            let similarity = Self.similarity(coarse, end: end, window: window, lag: lag)
            if similarity > bestSimilarity {
                bestSimilarity = similarity
                best = lag
            }
        }
        guard best > 0 else { return nil }
        // A multiple of the period matches about as well as the period itself.
        for divisor in [3, 2] where best / divisor >= Self.shortestPeriod / step {
            if Self.similarity(coarse, end: end, window: window, lag: best / divisor) >= 0.9 * bestSimilarity {
                best /= divisor
                break
            }
        }
        var period = best * step
        var similarity: Float = -1
        let low = max(Self.shortestPeriod, period - step)
        let high = min(Self.longestPeriod, period + step)
        for lag in low...high {
            let value = Self.similarity(history, end: history.count, window: Self.window, lag: lag)
            if value > similarity {
                similarity = value
                period = lag
            }
        }
        return (period, similarity)
    }

    /// The normalized cross-correlation of `samples[end - window ..< end]` with the same stretch `lag` earlier.
    private static func similarity(
        _ samples: UnsafeMutableBufferPointer<Float>, end: Int, window: Int, lag: Int
    ) -> Float {
        var cross: Float = 0
        var recent: Float = 0
        var earlier: Float = 0
        for index in (end - window)..<end {
            let a = samples[index]
            let b = samples[index - lag]
            cross += a * b
            recent += a * a
            earlier += b * b
        }
        let energy = (recent * earlier).squareRoot()
        return energy > 0 ? cross / energy : 0
    }
}
