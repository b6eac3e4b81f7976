/// Finds how much later than the engine expects the echo of what was played reaches the
/// microphone: the devices' own buffers and the air, which can reach hundreds of milliseconds
/// on a desktop sound server, longer than an adaptive filter's tail can sensibly be.
///
/// Both signals are brought down to 3 kHz (where speech's energy is), whitened by a first
/// difference so that their cross-correlation has a sharp peak at the echo's direct path, and
/// correlated at every lag up to `maximumDelaySamples`, forgetting over about two seconds. A
/// delay is reported once the same lag has led clearly (its correlation well above any lag
/// further than a millisecond and a half away) for 200 ms, and changes only the same way.
///
/// Preallocated: `process` neither allocates nor locks. One thread at a time.
final class EchoDelayEstimator {
    /// Samples averaged into one, 48 kHz to 3 kHz.
    static let decimation = 16
    /// How much the correlation keeps from one frame to the next: about two seconds at 20 ms.
    static let keep: Float = 0.99
    /// How far the leading lag's correlation must exceed any lag outside its neighbourhood.
    static let leadRatio: Float = 1.4
    /// Lags either side of the peak that belong to it (1.3 ms at 3 kHz).
    static let neighbourhood = 4
    /// Frames the same lag must lead before it is reported.
    static let framesToConfirm = 10

    /// The longest delay looked for, in 48 kHz samples.
    let maximumDelaySamples: Int
    /// The delay found, 48 kHz samples; nil until one has led long enough.
    private(set) var delaySamples: Int?
    private let lags: Int
    /// The decimated reference, newest first from `position(of:)`, written twice over (the second
    /// copy `historyCapacity` on) so that every lag of a sample is one contiguous run.
    private let history: UnsafeMutableBufferPointer<Float>
    private let historyCapacity: Int
    private var written = 0
    private let correlation: UnsafeMutableBufferPointer<Float>
    private let capturedScratch: UnsafeMutableBufferPointer<Float>
    private var previousReference: Float = 0
    private var previousCaptured: Float = 0
    private var leadingLag = -1
    /// The number of the last decimated reference sample that was not zero.
    private var lastAudibleReference = Int.min / 2
    private var leadingFrames = 0

    /// - Parameters:
    ///   - frameSamples: samples per `process` call, a multiple of `decimation`.
    ///   - maximumDelaySamples: the longest delay to look for.
    init(frameSamples: Int, maximumDelaySamples: Int) {
        precondition(frameSamples % Self.decimation == 0)
        self.maximumDelaySamples = maximumDelaySamples
        lags = maximumDelaySamples / Self.decimation + 1
        let frame = frameSamples / Self.decimation
        var capacity = 1
        while capacity < lags + frame { capacity <<= 1 }
        historyCapacity = capacity
        history = .allocate(count: 2 * capacity, filledWith: 0)
        correlation = .allocate(count: lags, filledWith: 0)
        capturedScratch = .allocate(count: frame, filledWith: 0)
    }

    deinit {
        history.deallocate()
        correlation.deallocate()
        capturedScratch.deallocate()
    }

    /// Takes one frame of the reference (aligned as the engine knows it) and of the capture.
    func process(reference: UnsafeBufferPointer<Float>, captured: UnsafeBufferPointer<Float>) {
        let step = Self.decimation
        let frame = captured.count / step
        for index in 0..<frame {
            var referenceSum: Float = 0
            var capturedSum: Float = 0
            for offset in 0..<step {
                referenceSum += reference[index * step + offset]
                capturedSum += captured[index * step + offset]
            }
            let position = position(of: written + index)
            history[position] = referenceSum - previousReference
            history[position + historyCapacity] = referenceSum - previousReference
            if referenceSum != previousReference { lastAudibleReference = written + index }
            previousReference = referenceSum
            capturedScratch[index] = capturedSum - previousCaptured
            previousCaptured = capturedSum
        }
        for lag in 0..<lags { correlation[lag] *= Self.keep }
        for index in 0..<frame {
            let sample = capturedScratch[index]
            // Products with a silent microphone, or with a reference silent at every lag, are
            // zeros: skipping them leaves every sum as it was, and the silent side costs nothing.
            if sample == 0 || written + index - lastAudibleReference >= lags { continue }
            // The reference `lag` samples before this one is `lag` on from its position.
            let start = position(of: written + index)
            for lag in 0..<min(lags, written + index + 1) {
                correlation[lag] += sample * history[start + lag]
            }
        }
        written += frame
        decide()
    }

    /// Where decimated reference sample `number` is kept: counting down, so that older samples
    /// follow it.
    private func position(of number: Int) -> Int {
        historyCapacity - 1 - (number & (historyCapacity - 1))
    }

    func reset() {
        history.update(repeating: 0)
        correlation.update(repeating: 0)
        written = 0
        lastAudibleReference = Int.min / 2
        previousReference = 0
        previousCaptured = 0
        leadingLag = -1
        leadingFrames = 0
        delaySamples = nil
    }

    private func decide() {
        var peakLag = 0
        var peak: Float = 0
        for lag in 0..<lags where abs(correlation[lag]) > peak {
            peak = abs(correlation[lag])
            peakLag = lag
        }
        var rival: Float = 0
        for lag in 0..<lags where abs(lag - peakLag) > Self.neighbourhood {
            rival = max(rival, abs(correlation[lag]))
        }
        guard peak > 0, peak >= Self.leadRatio * rival else {
            leadingFrames = 0
            return
        }
        if abs(peakLag - leadingLag) <= 1 {
            leadingFrames += 1
        } else {
            leadingLag = peakLag
            leadingFrames = 1
        }
        if leadingFrames >= Self.framesToConfirm {
            delaySamples = leadingLag * Self.decimation
        }
    }
}
