#if canImport(Glibc)
    import Glibc
#endif

/// Takes off, frequency by frequency, the echo the linear filter left: what its uncertainty
/// leaves, and a share of its estimate for what no linear filter removes (the loudspeaker's
/// distortion). A bin keeps what the error holds beyond that, so the near end's voice, which the
/// filter never explains, passes while only the far end's echo is taken off.
///
/// The gains apply to short overlapping windows (a fifth of a block, square-root Hann, half
/// overlapping), which costs one such step of delay: 1 ms for 5 ms blocks.
///
/// One thread at a time; preallocated, `process` neither allocates nor locks.
final class ResidualEchoSuppressor {
    let blockSamples: Int
    /// Samples each window moves on, and what the suppressor delays its input by.
    let hopSamples: Int
    /// The least gain, as a factor.
    let minimumGain: Float
    private let bins: Int
    private let hopBins: Int
    private let transform: FourierTransform

    /// How much more residual echo than estimated is taken off, and the share of the filter's
    /// echo estimate taken to be beyond any linear filter.
    static let overestimate: Float = 3
    static let nonlinearShare: Float = 0.005
    /// How much of a gain's last value a rising gain keeps per block; a falling one falls at once.
    static let riseSmoothing: Float = 0.5

    private let gains: UnsafeMutableBufferPointer<Float>
    private let hopGains: UnsafeMutableBufferPointer<Float>
    private let window: UnsafeMutableBufferPointer<Float>
    private let previous: UnsafeMutableBufferPointer<Float>
    private let overlap: UnsafeMutableBufferPointer<Float>
    private let frame: UnsafeMutableBufferPointer<Float>
    private let real: UnsafeMutableBufferPointer<Float>
    private let imaginary: UnsafeMutableBufferPointer<Float>

    /// - Parameters:
    ///   - blockSamples: the linear filter's block (240 or 120): its spectra have one bin more.
    ///   - minimumGainDB: the most any bin is attenuated, dB.
    init?(blockSamples: Int, minimumGainDB: Int) {
        guard blockSamples % 5 == 0, let transform = FourierTransform(count: 2 * blockSamples / 5) else { return nil }
        self.blockSamples = blockSamples
        hopSamples = blockSamples / 5
        minimumGain = Float(pow(10, -Double(minimumGainDB) / 20))
        bins = blockSamples + 1
        hopBins = hopSamples + 1
        self.transform = transform
        gains = .allocate(count: bins, filledWith: 1)
        hopGains = .allocate(count: hopBins, filledWith: 1)
        window = .allocate(count: 2 * hopSamples, filledWith: 0)
        // Square-root periodic Hann: its squares overlapped by half sum to one.
        for index in 0..<(2 * hopSamples) {
            window[index] = Float(sin(Double.pi * Double(index) / Double(2 * hopSamples)))
        }
        previous = .allocate(count: hopSamples, filledWith: 0)
        overlap = .allocate(count: hopSamples, filledWith: 0)
        frame = .allocate(count: 2 * hopSamples, filledWith: 0)
        real = .allocate(count: hopBins, filledWith: 0)
        imaginary = .allocate(count: hopBins, filledWith: 0)
    }

    deinit {
        for buffer in [gains, hopGains, window, previous, overlap, frame, real, imaginary] { buffer.deallocate() }
    }

    func reset() {
        gains.update(repeating: 1)
        previous.update(repeating: 0)
        overlap.update(repeating: 0)
    }

    /// Takes up where the input stood after the canceller stood aside: `lastInput` (the last hop
    /// of what was captured) as if it had passed through at full gain, so that what follows comes
    /// out one hop late without a seam.
    func resume(after lastInput: UnsafeBufferPointer<Float>) {
        for index in 0..<hopSamples {
            previous[index] = lastInput[index]
            overlap[index] = lastInput[index] * window[index + hopSamples] * window[index + hopSamples]
        }
    }

    /// Works out the gains from the filter's last block.
    func follow(_ filter: KalmanEchoFilter) {
        for bin in 0..<bins {
            let residual = filter.misadjustmentPower[bin] + Self.nonlinearShare * filter.echoPower[bin]
            let gain = max(minimumGain, 1 - Self.overestimate * residual / (filter.errorPower[bin] + 1e-12))
            gains[bin] = gain < gains[bin] ? gain : Self.riseSmoothing * gains[bin] + (1 - Self.riseSmoothing) * gain
        }
    }

    /// Writes `input` (one block) into `output`, `hopSamples` later, each frequency scaled by its
    /// gain weighted by `share`: 0 passes everything, 1 applies the gains whole.
    func process(_ input: UnsafeBufferPointer<Float>, share: Float, into output: UnsafeMutableBufferPointer<Float>) {
        let hop = hopSamples
        let pooled = blockSamples / hop
        // The window's bins are `pooled` times as wide as the filter's.
        for bin in 0..<hop {
            var sum: Float = 0
            for fine in (bin * pooled)..<((bin + 1) * pooled) { sum += gains[fine] }
            hopGains[bin] = 1 - share * (1 - sum / Float(pooled))
        }
        hopGains[hop] = 1 - share * (1 - gains[bins - 1])
        for start in stride(from: 0, to: blockSamples, by: hop) {
            for index in 0..<hop {
                frame[index] = previous[index] * window[index]
                frame[index + hop] = input[start + index] * window[index + hop]
                previous[index] = input[start + index]
            }
            transform.forward(UnsafeBufferPointer(frame), real: real, imaginary: imaginary)
            for bin in 0..<hopBins {
                real[bin] *= hopGains[bin]
                imaginary[bin] *= hopGains[bin]
            }
            transform.inverse(real: UnsafeBufferPointer(real), imaginary: UnsafeBufferPointer(imaginary), into: frame)
            for index in 0..<hop {
                output[start + index] = overlap[index] + frame[index] * window[index]
                overlap[index] = frame[index + hop] * window[index + hop]
            }
        }
    }
}
