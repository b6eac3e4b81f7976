/// Allocation-free conversions between the sample formats and channel layouts that devices,
/// files and the codec use. All take raw buffers so that audio threads can call them on
/// preallocated memory.
public enum SampleConversion {
    /// Full scale of a 16-bit sample, as a float. Converting with 32768 (not 32767) keeps
    /// int16 -> float -> int16 exact for every value.
    public static let int16Scale: Float = 32_768

    /// int16 to float in -1..<1. Converts `min(source.count, destination.count)` samples.
    @inlinable
    public static func convert(_ source: UnsafeBufferPointer<Int16>, to destination: UnsafeMutableBufferPointer<Float>)
    {
        let count = min(source.count, destination.count)
        for index in 0..<count {
            destination[index] = Float(source[index]) / int16Scale
        }
    }

    /// float to int16, rounding to nearest and saturating at full scale instead of wrapping.
    @inlinable
    public static func convert(_ source: UnsafeBufferPointer<Float>, to destination: UnsafeMutableBufferPointer<Int16>)
    {
        let count = min(source.count, destination.count)
        for index in 0..<count {
            destination[index] = int16(fromFloat: source[index])
        }
    }

    /// One float sample to int16, rounded and saturated. NaN becomes silence.
    @inlinable
    public static func int16(fromFloat sample: Float) -> Int16 {
        let scaled = (sample * int16Scale).rounded()
        if scaled >= 32_767 { return .max }
        if scaled <= -32_768 { return .min }
        if scaled.isNaN { return 0 }
        return Int16(scaled)
    }

    /// Mixes interleaved `channels`-channel frames down to mono by averaging. Returns the
    /// number of frames written (`min(source frames, destination.count)`).
    @inlinable
    @discardableResult
    public static func downmix(
        _ source: UnsafeBufferPointer<Float>,
        channels: Int,
        to destination: UnsafeMutableBufferPointer<Float>
    ) -> Int {
        let frames = min(source.count / channels, destination.count)
        if channels == 1 {
            for index in 0..<frames { destination[index] = source[index] }
            return frames
        }
        let weight = 1 / Float(channels)
        for frame in 0..<frames {
            var sum: Float = 0
            for channel in 0..<channels { sum += source[frame * channels + channel] }
            destination[frame] = sum * weight
        }
        return frames
    }

    /// Copies mono frames to every channel of interleaved `channels`-channel frames. Returns
    /// the number of frames written.
    @inlinable
    @discardableResult
    public static func upmix(
        _ source: UnsafeBufferPointer<Float>,
        channels: Int,
        to destination: UnsafeMutableBufferPointer<Float>
    ) -> Int {
        let frames = min(source.count, destination.count / channels)
        for frame in 0..<frames {
            for channel in 0..<channels { destination[frame * channels + channel] = source[frame] }
        }
        return frames
    }
}
