import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Deterministic signals for tests and benchmarks.
public enum TestSignal {
    /// A sine of `frequency` Hz at `amplitude` (0…1), `frames` long, at `sampleRate`.
    public static func sine(frequency: Double, amplitude: Float = 0.5, frames: Int, sampleRate: Int = engineSampleRate)
        -> [Float]
    {
        (0..<frames).map { index in
            amplitude * Float(sin(2 * Double.pi * frequency * Double(index) / Double(sampleRate)))
        }
    }
}
