import SystemPackage
import VoiceCodec
import VoiceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Streams 48 kHz float audio into a WAV file on disk, chunk by chunk, so that memory stays
/// the same however long the recording runs.
///
/// The file is created (or truncated) at once, which is also the check that the path is
/// writable, and starts with a header whose data size is 0: readers, this project's included,
/// take that to mean "up to the end of the file", so even a recording cut short by a crash can
/// be read. `finish` flushes the rate converter and patches the header with the real sizes.
/// Audio at other rates goes through an `AlignedResampler`, so the file lines up in time with
/// what was written. Every buffer is allocated here, once.
///
/// Thread contract: one thread at a time; it blocks on the disk, so never call it from an
/// audio thread. `@unchecked Sendable` because its owner keeps it behind a `Mutex` and hands
/// it buffers the caller still owns; the lock, not the type, provides the exclusion.
final class WAVStreamWriter: @unchecked Sendable {
    let path: String
    let format: AudioFormat
    let sampleFormat: SampleFormat
    private(set) var dataBytes = 0
    /// The first write that failed; later audio is dropped rather than written after a gap.
    private(set) var failure: AudioDeviceError?
    private var resampler: AlignedResampler
    private let descriptor: Int32
    private let encoded: UnsafeMutableRawBufferPointer

    init(path: String, format: AudioFormat, sampleFormat: SampleFormat) throws(AudioDeviceError) {
        self.path = path
        self.format = format
        self.sampleFormat = sampleFormat
        do {
            resampler = try AlignedResampler(
                channels: format.channels, inputRate: engineSampleRate, outputRate: format.sampleRate)
        } catch {
            throw AudioDeviceError(.unsupportedConfiguration, device: path, reason: error.description, isFile: true)
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .fileSystem(path, doing: "create the file", errno: errno) }
        self.descriptor = descriptor
        encoded = .allocate(byteCount: 16_384 * format.channels * sampleFormat.bytesPerSample, alignment: 4)
        let header = WAVHeader.encode(format: format, sampleFormat: sampleFormat, frameCount: 0)
        header.withUnsafeBytes { writeAll($0, at: nil) }
        if let failure { throw failure }
    }

    deinit {
        close(descriptor)
        encoded.deallocate()
    }

    /// Converts and writes whole frames of 48 kHz audio.
    func append(_ samples: UnsafeBufferPointer<Float>) {
        resampler.process(samples) { encodeAndWrite($0) }
    }

    /// Writes what the rate converter still holds and patches the header with the final size.
    /// Appending afterwards continues the file; the next `finish` patches it again.
    func finish() {
        resampler.finish { encodeAndWrite($0) }
        let blockAlign = format.channels * sampleFormat.bytesPerSample
        let header = WAVHeader.encode(format: format, sampleFormat: sampleFormat, frameCount: dataBytes / blockAlign)
        header.withUnsafeBytes { writeAll($0, at: 0) }
    }

    private func encodeAndWrite(_ samples: UnsafeBufferPointer<Float>) {
        let samplesPerChunk = encoded.count / sampleFormat.bytesPerSample
        var offset = 0
        while offset < samples.count, failure == nil {
            let count = min(samplesPerChunk, samples.count - offset)
            switch sampleFormat {
            case .int16:
                for index in 0..<count {
                    let value = SampleConversion.int16(fromFloat: samples[offset + index])
                    encoded.storeBytes(of: value.littleEndian, toByteOffset: index * 2, as: Int16.self)
                }
            case .float32:
                for index in 0..<count {
                    encoded.storeBytes(
                        of: samples[offset + index].bitPattern.littleEndian, toByteOffset: index * 4, as: UInt32.self)
                }
            }
            let bytes = count * sampleFormat.bytesPerSample
            writeAll(UnsafeRawBufferPointer(rebasing: encoded[0..<bytes]), at: nil)
            if failure == nil { dataBytes += bytes }
            offset += count
        }
    }

    /// Writes every byte, at the end of the file or at `position`, retrying after signals and
    /// short writes.
    private func writeAll(_ bytes: UnsafeRawBufferPointer, at position: Int?) {
        guard failure == nil else { return }
        let file = FileDescriptor(rawValue: descriptor)
        do {
            if let position {
                try file.writeAll(toAbsoluteOffset: Int64(position), bytes)
            } else {
                try file.writeAll(bytes)
            }
        } catch {
            failure = .fileSystem(path, doing: "write the file", errno: (error as? Errno)?.rawValue ?? EIO)
        }
    }
}
