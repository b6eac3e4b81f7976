import VoiceCore

/// One period of interleaved samples in the device's own format, preallocated, with the
/// conversions to and from the engine's floats. Freed exactly once.
///
/// Thread contract: used by one device thread at a time; nothing here allocates.
struct DeviceSampleBuffer: ~Copyable {
    let format: SampleFormat
    let channels: Int
    let capacityFrames: Int
    /// The bytes alsa-lib reads into or writes from.
    let raw: UnsafeMutableRawPointer

    init(format: SampleFormat, channels: Int, frames: Int) {
        self.format = format
        self.channels = channels
        self.capacityFrames = frames
        let samples = frames * channels
        raw = .allocate(byteCount: samples * format.bytesPerSample, alignment: 16)
        switch format {
        case .int16: raw.initializeMemory(as: Int16.self, repeating: 0, count: samples)
        case .float32: raw.initializeMemory(as: Float.self, repeating: 0, count: samples)
        }
    }

    deinit {
        raw.deallocate()
    }

    /// Device samples to floats in -1…1; int16 scales by 1/32768, so every value maps exactly.
    func convert(frames: Int, to destination: UnsafeMutablePointer<Float>) {
        let samples = frames * channels
        switch format {
        case .int16:
            SampleConversion.convert(
                UnsafeBufferPointer(start: raw.assumingMemoryBound(to: Int16.self), count: samples),
                to: UnsafeMutableBufferPointer(start: destination, count: samples))
        case .float32:
            destination.update(from: raw.assumingMemoryBound(to: Float.self), count: samples)
        }
    }

    /// Floats to device samples; int16 rounds and saturates.
    func fill(frames: Int, from source: UnsafePointer<Float>) {
        let samples = frames * channels
        switch format {
        case .int16:
            SampleConversion.convert(
                UnsafeBufferPointer(start: source, count: samples),
                to: UnsafeMutableBufferPointer(start: raw.assumingMemoryBound(to: Int16.self), count: samples))
        case .float32:
            raw.assumingMemoryBound(to: Float.self).update(from: source, count: samples)
        }
    }
}
