#if canImport(Glibc)
    import Glibc
#endif

/// The discrete Fourier transform of real signals of one size, `count`, where `count / 2` has no
/// prime factor but 2, 3 and 5 (480, 96, …), for the echo canceller's blocks. Hand-written because
/// the engine thread needs transforms of these sizes that never allocate, and no package this
/// project may use offers one.
///
/// A real signal of `count` samples is transformed as a complex one of `count / 2` (even samples
/// real, odd imaginary) and the two halves' spectra are then told apart. The complex transform is
/// mixed-radix Cooley–Tukey, decimation in time: the input is read in digit-reversed order, then
/// each stage combines `radix` transforms of the size before into one. Twiddle factors and the
/// order are worked out once, at creation. One thread at a time.
final class FourierTransform {
    /// Samples of the real signal; the spectrum has `count / 2 + 1` bins.
    let count: Int
    /// Points of the complex transform.
    private let points: Int
    private let radices: [Int]
    private let order: UnsafeMutablePointer<Int>
    /// e^(-2πik/points), k = 0..<points.
    private let cosines: UnsafeMutablePointer<Float>
    private let sines: UnsafeMutablePointer<Float>
    /// e^(-2πik/count), k = 0...points: what tells the halves' spectra apart.
    private let splitCosines: UnsafeMutablePointer<Float>
    private let splitSines: UnsafeMutablePointer<Float>
    private let real: UnsafeMutablePointer<Float>
    private let imaginary: UnsafeMutablePointer<Float>
    private let naturalReal: UnsafeMutablePointer<Float>
    private let naturalImaginary: UnsafeMutablePointer<Float>

    /// - Parameter count: an even size whose half has no prime factor but 2, 3 and 5.
    init?(count: Int) {
        guard count >= 2, count % 2 == 0 else { return nil }
        let points = count / 2
        var radices: [Int] = []
        var rest = points
        for radix in [4, 2, 3, 5] {
            while rest % radix == 0 {
                radices.append(radix)
                rest /= radix
            }
        }
        guard rest == 1 else { return nil }
        self.count = count
        self.points = points
        self.radices = radices
        order = .allocate(capacity: points)
        for (index, value) in Self.digitReversedOrder(Array(0..<points), radices: radices[...]).enumerated() {
            (order + index).initialize(to: value)
        }
        func table(_ size: Int, _ value: (Int) -> Float) -> UnsafeMutablePointer<Float> {
            let table = UnsafeMutablePointer<Float>.allocate(capacity: size)
            for index in 0..<size { (table + index).initialize(to: value(index)) }
            return table
        }
        cosines = table(points) { Float(cos(-2 * Double.pi * Double($0) / Double(points))) }
        sines = table(points) { Float(sin(-2 * Double.pi * Double($0) / Double(points))) }
        splitCosines = table(points + 1) { Float(cos(-2 * Double.pi * Double($0) / Double(count))) }
        splitSines = table(points + 1) { Float(sin(-2 * Double.pi * Double($0) / Double(count))) }
        real = table(points) { _ in 0 }
        imaginary = table(points) { _ in 0 }
        naturalReal = table(points + 1) { _ in 0 }
        naturalImaginary = table(points + 1) { _ in 0 }
    }

    deinit {
        order.deallocate()
        for table in [
            cosines, sines, splitCosines, splitSines, real, imaginary, naturalReal, naturalImaginary,
        ] {
            table.deallocate()
        }
    }

    /// The order the first stage reads its input in: the last stage combines `radix` transforms of
    /// every `radix`-th point, each ordered the same way for the stages before.
    private static func digitReversedOrder(_ indices: [Int], radices: ArraySlice<Int>) -> [Int] {
        guard let radix = radices.last, indices.count > 1 else { return indices }
        var result: [Int] = []
        for residue in 0..<radix {
            let subsequence = stride(from: residue, to: indices.count, by: radix).map { indices[$0] }
            result += digitReversedOrder(subsequence, radices: radices.dropLast())
        }
        return result
    }

    /// The spectrum of `samples` (`count` of them): bins 0 through `count / 2`, into `real` and
    /// `imaginary` (each `count / 2 + 1`).
    func forward(
        _ samples: UnsafeBufferPointer<Float>, real outReal: UnsafeMutableBufferPointer<Float>,
        imaginary outImaginary: UnsafeMutableBufferPointer<Float>
    ) {
        let input = samples.baseAddress!
        let (spectrumReal, spectrumImaginary) = (outReal.baseAddress!, outImaginary.baseAddress!)
        for index in 0..<points {
            let point = order[index]
            real[index] = input[2 * point]
            imaginary[index] = input[2 * point + 1]
        }
        transform(sign: 1)
        // Z = E + iO, where E and O are the even and odd samples' spectra; X[k] = E[k] + w^k O[k].
        for bin in 0...points {
            let (zr, zi) = (real[bin % points], imaginary[bin % points])
            let mirror = (points - bin) % points
            let (mr, mi) = (real[mirror], -imaginary[mirror])
            let (evenReal, evenImaginary) = (0.5 * (zr + mr), 0.5 * (zi + mi))
            let (oddReal, oddImaginary) = (0.5 * (zi - mi), -0.5 * (zr - mr))
            let (c, s) = (splitCosines[bin], splitSines[bin])
            spectrumReal[bin] = evenReal + c * oddReal - s * oddImaginary
            spectrumImaginary[bin] = evenImaginary + c * oddImaginary + s * oddReal
        }
    }

    /// The `count` samples whose spectrum's bins 0 through `count / 2` are `real` and `imaginary`
    /// (the rest follow by symmetry), into `samples`: `forward`'s inverse.
    func inverse(
        real inReal: UnsafeBufferPointer<Float>, imaginary inImaginary: UnsafeBufferPointer<Float>,
        into samples: UnsafeMutableBufferPointer<Float>
    ) {
        let (spectrumReal, spectrumImaginary) = (inReal.baseAddress!, inImaginary.baseAddress!)
        let output = samples.baseAddress!
        // E[k] = (X[k] + conj X[P-k]) / 2 and O[k] = (X[k] - conj X[P-k]) w^-k / 2; Z = E + iO.
        for bin in 0..<points {
            let (xr, xi) = (spectrumReal[bin], spectrumImaginary[bin])
            let (mr, mi) = (spectrumReal[points - bin], -spectrumImaginary[points - bin])
            let (evenReal, evenImaginary) = (0.5 * (xr + mr), 0.5 * (xi + mi))
            let (dr, di) = (0.5 * (xr - mr), 0.5 * (xi - mi))
            let (c, s) = (splitCosines[bin], -splitSines[bin])
            let (oddReal, oddImaginary) = (dr * c - di * s, dr * s + di * c)
            naturalReal[bin] = evenReal - oddImaginary
            naturalImaginary[bin] = evenImaginary + oddReal
        }
        for index in 0..<points {
            real[index] = naturalReal[order[index]]
            imaginary[index] = naturalImaginary[order[index]]
        }
        transform(sign: -1)
        let scale = 1 / Float(points)
        for index in 0..<points {
            output[2 * index] = real[index] * scale
            output[2 * index + 1] = imaginary[index] * scale
        }
    }

    /// The complex transform's stages, in place on `real` and `imaginary`, which hold the input in
    /// digit-reversed order; `sign` -1 runs the inverse (unscaled).
    private func transform(sign: Float) {
        var span = 1
        for radix in radices {
            let combined = span * radix
            let twiddleStep = points / combined
            for start in stride(from: 0, to: points, by: combined) {
                for offset in 0..<span {
                    let base = start + offset
                    switch radix {
                    case 2: butterfly2(base, span: span, twiddle: offset * twiddleStep, sign: sign)
                    case 4: butterfly4(base, span: span, twiddle: offset * twiddleStep, sign: sign)
                    default: butterfly(radix, base, span: span, twiddle: offset * twiddleStep, sign: sign)
                    }
                }
            }
            span = combined
        }
    }

    /// Point `base + term * span` times w^(term * twiddle).
    @inline(__always)
    private func twiddled(_ base: Int, _ term: Int, span: Int, twiddle: Int, sign: Float) -> (Float, Float) {
        let index = base + term * span
        let factor = term * twiddle
        let (c, s) = (cosines[factor], sign * sines[factor])
        return (real[index] * c - imaginary[index] * s, real[index] * s + imaginary[index] * c)
    }

    private func butterfly2(_ base: Int, span: Int, twiddle: Int, sign: Float) {
        let (ar, ai) = (real[base], imaginary[base])
        let (br, bi) = twiddled(base, 1, span: span, twiddle: twiddle, sign: sign)
        real[base] = ar + br
        imaginary[base] = ai + bi
        real[base + span] = ar - br
        imaginary[base + span] = ai - bi
    }

    private func butterfly4(_ base: Int, span: Int, twiddle: Int, sign: Float) {
        let (ar, ai) = (real[base], imaginary[base])
        let (br, bi) = twiddled(base, 1, span: span, twiddle: twiddle, sign: sign)
        let (cr, ci) = twiddled(base, 2, span: span, twiddle: twiddle, sign: sign)
        let (dr, di) = twiddled(base, 3, span: span, twiddle: twiddle, sign: sign)
        let (sumACr, sumACi, differenceACr, differenceACi) = (ar + cr, ai + ci, ar - cr, ai - ci)
        let (sumBDr, sumBDi) = (br + dr, bi + di)
        // (b - d) times -i (forward) or i (inverse).
        let (rotatedr, rotatedi) = (sign * (bi - di), -sign * (br - dr))
        real[base] = sumACr + sumBDr
        imaginary[base] = sumACi + sumBDi
        real[base + span] = differenceACr + rotatedr
        imaginary[base + span] = differenceACi + rotatedi
        real[base + 2 * span] = sumACr - sumBDr
        imaginary[base + 2 * span] = sumACi - sumBDi
        real[base + 3 * span] = differenceACr - rotatedr
        imaginary[base + 3 * span] = differenceACi - rotatedi
    }

    /// Radix 3 or 5, by the definition.
    private func butterfly(_ radix: Int, _ base: Int, span: Int, twiddle: Int, sign: Float) {
        var inputsReal = (Float(0), Float(0), Float(0), Float(0), Float(0))
        var inputsImaginary = inputsReal
        withUnsafeMutableBytes(of: &inputsReal) { realBytes in
            withUnsafeMutableBytes(of: &inputsImaginary) { imaginaryBytes in
                let inReal = realBytes.baseAddress!.assumingMemoryBound(to: Float.self)
                let inImaginary = imaginaryBytes.baseAddress!.assumingMemoryBound(to: Float.self)
                for term in 0..<radix {
                    (inReal[term], inImaginary[term]) = twiddled(base, term, span: span, twiddle: twiddle, sign: sign)
                }
                let rootStep = points / radix
                for output in 0..<radix {
                    var sumReal: Float = 0
                    var sumImaginary: Float = 0
                    for term in 0..<radix {
                        let root = (output * term % radix) * rootStep
                        let (c, s) = (cosines[root], sign * sines[root])
                        sumReal += inReal[term] * c - inImaginary[term] * s
                        sumImaginary += inReal[term] * s + inImaginary[term] * c
                    }
                    real[base + output * span] = sumReal
                    imaginary[base + output * span] = sumImaginary
                }
            }
        }
    }
}
