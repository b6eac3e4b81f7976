/// The echo canceller's linear stage: a partitioned-block frequency-domain Kalman filter that
/// learns the path from the speaker to the microphone and subtracts its estimate of the echo.
///
/// Each block of `blockSamples` is filtered through `partitions` blocks of the reference's past
/// spectra. Every coefficient carries how uncertain it still is (`uncertainty`); the step it
/// takes is that uncertainty over what the error is expected to hold: the echo the uncertainty
/// leaves plus everything the filter cannot explain (the near end's voice, noise), estimated from
/// the error. A young filter therefore learns at full speed and a settled one slowly, and when
/// the near end talks the explained share falls and so does the step: no double-talk detector is
/// needed. One partition a block is constrained to a linear convolution, in turn.
///
/// A settled filter is sure of itself, so when the path changes (the player moved, the headset
/// shifted) it would relearn slowly. What it sends out then is the microphone plus an echo that
/// is no longer there: when the error holds twice the microphone's power, the filter is taken to
/// be wrong, and every coefficient is made as uncertain as at the start (the path learned is
/// kept as the starting point). The near end talking does not do that: it is in both.
///
/// What the suppressor needs comes out per bin with each block: the error's power, the echo the
/// filter estimated, and the echo its uncertainty leaves (`errorPower`, `echoPower`,
/// `misadjustmentPower`).
///
/// One thread at a time; preallocated, `process` neither allocates nor locks.
final class KalmanEchoFilter {
    let blockSamples: Int
    let partitions: Int
    /// Bins of each spectrum: `blockSamples + 1`.
    let bins: Int
    private let transform: FourierTransform

    /// How much of each coefficient survives a block (the state's transition), and what its
    /// uncertainty starts at, in the spectra's units for a path of unit gain.
    static let transition: Float = 0.9999
    static let initialUncertainty: Float = 0.03
    static let leastUncertainty: Float = 1e-7
    /// How much more power than the microphone's the error must hold for the filter to restart,
    /// how fast both are followed (per block), and how many blocks a restart then holds for.
    static let restartRatio: Float = 2
    static let restartSmoothing: Float = 0.9
    static let restartHoldBlocks = 100
    /// How fast the estimate of what the filter cannot explain follows the error, per block, and
    /// the least share of the error it is taken to be.
    static let unexplainedSmoothing: Float = 0.5
    static let unexplainedFloor: Float = 0.01

    // The reference's spectra, newest at `newest`, and their powers; the filter and its
    // uncertainty, partition 0 for the newest block.
    private let referenceReal: UnsafeMutableBufferPointer<Float>
    private let referenceImaginary: UnsafeMutableBufferPointer<Float>
    private let referencePower: UnsafeMutableBufferPointer<Float>
    private let filterReal: UnsafeMutableBufferPointer<Float>
    private let filterImaginary: UnsafeMutableBufferPointer<Float>
    private let uncertainty: UnsafeMutableBufferPointer<Float>
    private var newest = 0
    private var constrainedNext = 0
    private var errorEnergy: Float = 0
    private var capturedEnergy: Float = 0
    private var blocksSinceRestart = 0
    /// Times the filter found itself wrong and learned afresh.
    private(set) var restarts = 0
    private let unexplained: UnsafeMutableBufferPointer<Float>
    /// Per bin, for the last block: see the type's description.
    let errorPower: UnsafeMutableBufferPointer<Float>
    let echoPower: UnsafeMutableBufferPointer<Float>
    let misadjustmentPower: UnsafeMutableBufferPointer<Float>
    // Working buffers: the last two reference blocks, a transform's samples and spectrum.
    private let window: UnsafeMutableBufferPointer<Float>
    private let samples: UnsafeMutableBufferPointer<Float>
    private let spectrumReal: UnsafeMutableBufferPointer<Float>
    private let spectrumImaginary: UnsafeMutableBufferPointer<Float>
    private let errorReal: UnsafeMutableBufferPointer<Float>
    private let errorImaginary: UnsafeMutableBufferPointer<Float>

    /// - Parameters:
    ///   - blockSamples: 240 or 120 (a transform of twice as many).
    ///   - partitions: blocks of echo modelled: the tail over the block.
    init?(blockSamples: Int, partitions: Int) {
        guard blockSamples > 0, partitions > 0, let transform = FourierTransform(count: 2 * blockSamples) else {
            return nil
        }
        self.blockSamples = blockSamples
        self.partitions = partitions
        self.transform = transform
        bins = blockSamples + 1
        let states = partitions * bins
        referenceReal = .allocate(count: states, filledWith: 0)
        referenceImaginary = .allocate(count: states, filledWith: 0)
        referencePower = .allocate(count: states, filledWith: 0)
        filterReal = .allocate(count: states, filledWith: 0)
        filterImaginary = .allocate(count: states, filledWith: 0)
        uncertainty = .allocate(count: states, filledWith: Self.initialUncertainty)
        unexplained = .allocate(count: bins, filledWith: 0)
        errorPower = .allocate(count: bins, filledWith: 0)
        echoPower = .allocate(count: bins, filledWith: 0)
        misadjustmentPower = .allocate(count: bins, filledWith: 0)
        window = .allocate(count: 2 * blockSamples, filledWith: 0)
        samples = .allocate(count: 2 * blockSamples, filledWith: 0)
        spectrumReal = .allocate(count: bins, filledWith: 0)
        spectrumImaginary = .allocate(count: bins, filledWith: 0)
        errorReal = .allocate(count: bins, filledWith: 0)
        errorImaginary = .allocate(count: bins, filledWith: 0)
    }

    deinit {
        for buffer in [
            referenceReal, referenceImaginary, referencePower, filterReal, filterImaginary, uncertainty, unexplained,
            errorPower, echoPower, misadjustmentPower, window, samples, spectrumReal, spectrumImaginary, errorReal,
            errorImaginary,
        ] {
            buffer.deallocate()
        }
    }

    /// Forgets the path learned. On the engine thread: one buffer at a time, no list of them.
    func reset() {
        referenceReal.update(repeating: 0)
        referenceImaginary.update(repeating: 0)
        referencePower.update(repeating: 0)
        filterReal.update(repeating: 0)
        filterImaginary.update(repeating: 0)
        unexplained.update(repeating: 0)
        uncertainty.update(repeating: Self.initialUncertainty)
        window.update(repeating: 0)
        newest = 0
        constrainedNext = 0
        errorEnergy = 0
        capturedEnergy = 0
        blocksSinceRestart = 0
    }

    /// Takes one block of the reference into the filter's past, without estimating or learning: while
    /// the canceller stands aside, the past stays in step with the speaker, so that the estimate is
    /// whole the moment it is needed again. One transform, a fraction of `process`'s work.
    func follow(reference: UnsafeBufferPointer<Float>) {
        let (block, bins, partitions) = (blockSamples, self.bins, self.partitions)
        let history = window.baseAddress!
        for index in 0..<block {
            history[index] = history[index + block]
            history[index + block] = reference[index]
        }
        newest = (newest + partitions - 1) % partitions
        let slot = newest * bins
        let real = UnsafeMutableBufferPointer(rebasing: referenceReal[slot..<(slot + bins)])
        let imaginary = UnsafeMutableBufferPointer(rebasing: referenceImaginary[slot..<(slot + bins)])
        // Silence has no spectrum to work out.
        if !window.contains(where: { $0 != 0 }) {
            real.update(repeating: 0)
            imaginary.update(repeating: 0)
            UnsafeMutableBufferPointer(rebasing: referencePower[slot..<(slot + bins)]).update(repeating: 0)
            return
        }
        transform.forward(UnsafeBufferPointer(window), real: real, imaginary: imaginary)
        for bin in 0..<bins { referencePower[slot + bin] = real[bin] * real[bin] + imaginary[bin] * imaginary[bin] }
    }

    /// Writes `captured` less the echo estimated from `reference` (one block each) into `error`,
    /// then learns from what was left.
    func process(
        captured: UnsafeBufferPointer<Float>, reference: UnsafeBufferPointer<Float>,
        error: UnsafeMutableBufferPointer<Float>
    ) {
        let (block, bins, partitions) = (blockSamples, self.bins, self.partitions)
        // Raw pointers: these loops run for every block on the engine thread.
        let (xReal, xImaginary, xPower) = (
            referenceReal.baseAddress!, referenceImaginary.baseAddress!, referencePower.baseAddress!
        )
        let (hReal, hImaginary, p) = (filterReal.baseAddress!, filterImaginary.baseAddress!, uncertainty.baseAddress!)
        let (yReal, yImaginary) = (spectrumReal.baseAddress!, spectrumImaginary.baseAddress!)
        let (eReal, eImaginary) = (errorReal.baseAddress!, errorImaginary.baseAddress!)
        let (time, history, misadjustment) = (
            samples.baseAddress!, window.baseAddress!, misadjustmentPower.baseAddress!
        )
        // The newest reference spectrum: the last two blocks, so that each partition's product
        // holds a whole block of linear convolution in its second half.
        for index in 0..<block {
            history[index] = history[index + block]
            history[index + block] = reference[index]
        }
        newest = (newest + partitions - 1) % partitions
        let slot = newest * bins
        transform.forward(
            UnsafeBufferPointer(window), real: UnsafeMutableBufferPointer(start: xReal + slot, count: bins),
            imaginary: UnsafeMutableBufferPointer(start: xImaginary + slot, count: bins))
        for bin in slot..<(slot + bins) { xPower[bin] = xReal[bin] * xReal[bin] + xImaginary[bin] * xImaginary[bin] }

        // The echo estimate, and what the uncertainty would leave of it; then the error in time.
        spectrumReal.update(repeating: 0)
        spectrumImaginary.update(repeating: 0)
        misadjustmentPower.update(repeating: 0)
        for partition in 0..<partitions {
            let state = partition * bins
            let spectrum = ((newest + partition) % partitions) * bins
            for bin in 0..<bins {
                let (hr, hi) = (hReal[state + bin], hImaginary[state + bin])
                let (xr, xi) = (xReal[spectrum + bin], xImaginary[spectrum + bin])
                yReal[bin] += hr * xr - hi * xi
                yImaginary[bin] += hr * xi + hi * xr
                misadjustment[bin] += xPower[spectrum + bin] * p[state + bin]
            }
        }
        transform.inverse(
            real: UnsafeBufferPointer(spectrumReal), imaginary: UnsafeBufferPointer(spectrumImaginary), into: samples)
        var (blockError, blockCaptured, blockReference): (Float, Float, Float) = (0, 0, 0)
        for index in 0..<block {
            let estimate = time[index + block]
            error[index] = captured[index] - estimate
            time[index] = 0
            time[index + block] = estimate
            blockError += error[index] * error[index]
            blockCaptured += captured[index] * captured[index]
            blockReference += reference[index] * reference[index]
        }
        let isWrong = followPowers(error: blockError, captured: blockCaptured, reference: blockReference)
        // The estimate's power per bin, placed as the error is, for the suppressor.
        transform.forward(UnsafeBufferPointer(samples), real: spectrumReal, imaginary: spectrumImaginary)
        for bin in 0..<bins { echoPower[bin] = yReal[bin] * yReal[bin] + yImaginary[bin] * yImaginary[bin] }
        for index in 0..<block { time[index + block] = error[index] }
        transform.forward(UnsafeBufferPointer(samples), real: errorReal, imaginary: errorImaginary)

        // What the uncertainty explains of the error, and what it cannot.
        let smoothing = Self.unexplainedSmoothing
        for bin in 0..<bins {
            let power = eReal[bin] * eReal[bin] + eImaginary[bin] * eImaginary[bin]
            errorPower[bin] = power
            misadjustment[bin] *= 0.5
            let left = max(power - misadjustment[bin], Self.unexplainedFloor * power)
            unexplained[bin] = smoothing * unexplained[bin] + (1 - smoothing) * left
            // From here on, the inverse of what the error is expected to hold.
            yReal[bin] = 1 / (misadjustment[bin] + unexplained[bin] + 1e-10)
        }

        // The Kalman update of every partition.
        let transition = Self.transition
        let renewal = 1 - transition * transition
        for partition in 0..<partitions {
            let state = partition * bins
            let spectrum = ((newest + partition) % partitions) * bins
            for bin in 0..<bins {
                let step = p[state + bin] * yReal[bin]
                let (xr, xi) = (xReal[spectrum + bin], xImaginary[spectrum + bin])
                let (er, ei) = (eReal[bin], eImaginary[bin])
                // step × conj(X) × E
                let hr = transition * (hReal[state + bin] + step * (xr * er + xi * ei))
                let hi = transition * (hImaginary[state + bin] + step * (xr * ei - xi * er))
                hReal[state + bin] = hr
                hImaginary[state + bin] = hi
                // Rounding must not take the uncertainty below its floor, nor to zero: a coefficient
                // that is never uncertain never learns again.
                let kept = max(0, 1 - 0.5 * step * xPower[spectrum + bin])
                p[state + bin] = max(
                    Self.leastUncertainty,
                    transition * transition * kept * p[state + bin] + renewal * (hr * hr + hi * hi))
            }
        }
        constrain(partition: constrainedNext)
        constrainedNext = (constrainedNext + 1) % partitions
        // After this block's update, which took its steps from the uncertainty it started with.
        if isWrong {
            uncertainty.update(repeating: Self.initialUncertainty)
            restarts += 1
        }
    }

    /// Follows the block's powers, and says whether the error has held far more than the
    /// microphone while something was played: then the path the filter learned is gone, and every
    /// coefficient is to be made as uncertain as at the start.
    private func followPowers(error: Float, captured: Float, reference: Float) -> Bool {
        let smoothing = Self.restartSmoothing
        errorEnergy = smoothing * errorEnergy + (1 - smoothing) * error
        capturedEnergy = smoothing * capturedEnergy + (1 - smoothing) * captured
        blocksSinceRestart += 1
        // About -60 dBFS over the block: something audible was played. A microphone below about
        // -70 dBFS hears no echo worth relearning for.
        let audible = reference > 1e-6 * Float(blockSamples)
        let heard = capturedEnergy > 1e-7 * Float(blockSamples)
        guard audible, heard, blocksSinceRestart > Self.restartHoldBlocks,
            errorEnergy > Self.restartRatio * capturedEnergy
        else { return false }
        blocksSinceRestart = 0
        return true
    }

    /// Makes one partition's filter a block of taps again: the unconstrained updates let it
    /// wrap around the transform.
    private func constrain(partition: Int) {
        let state = partition * bins
        let real = UnsafeMutableBufferPointer(rebasing: filterReal[state..<(state + bins)])
        let imaginary = UnsafeMutableBufferPointer(rebasing: filterImaginary[state..<(state + bins)])
        transform.inverse(real: UnsafeBufferPointer(real), imaginary: UnsafeBufferPointer(imaginary), into: samples)
        for index in blockSamples..<(2 * blockSamples) { samples[index] = 0 }
        transform.forward(UnsafeBufferPointer(samples), real: real, imaginary: imaginary)
    }
}
