import VoiceCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Decoded WAV audio: interleaved float samples in -1…1 and the format they were stored in.
public struct WAVAudio: Hashable, Sendable {
    public var format: AudioFormat
    /// The encoding the samples had in the file, and will have when written.
    public var sampleFormat: SampleFormat
    /// Interleaved samples, `format.channels` per frame.
    public var samples: [Float]

    public init(format: AudioFormat, sampleFormat: SampleFormat = .int16, samples: [Float]) {
        self.format = format
        self.sampleFormat = sampleFormat
        self.samples = samples
    }

    public var frameCount: Int { samples.count / format.channels }
    public var durationSeconds: Double { Double(frameCount) / Double(format.sampleRate) }
}

/// Where the audio of a WAV file lies and how it is encoded, read from the header alone.
public struct WAVHeader: Hashable, Sendable {
    public var format: AudioFormat
    public var sampleFormat: SampleFormat
    /// Byte offset of the first sample.
    public var dataOffset: Int
    /// Bytes of sample data (a whole number of frames).
    public var dataByteCount: Int

    public var frameCount: Int { dataByteCount / (format.channels * sampleFormat.bytesPerSample) }

    /// The size of the header `WAVHeader.encode` writes.
    public static let canonicalByteCount = 44

    /// Parses the RIFF structure of `bytes`, treating every byte as untrusted: every length
    /// is checked against what is there before it is used.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(WAVError) {
        guard bytes.count >= 12 else { throw .tooShort(byteCount: bytes.count) }
        guard bytes.fourCC(at: 0) == "RIFF", bytes.fourCC(at: 8) == "WAVE" else { throw .notRIFFWave }

        var offset = 12
        var parsedFormat: (AudioFormat, SampleFormat, blockAlign: Int)?
        while offset + 8 <= bytes.count {
            let chunk = bytes.fourCC(at: offset)
            let declared = Int(bytes.littleEndianUInt32(at: offset + 4))
            let bodyStart = offset + 8
            let available = bytes.count - bodyStart
            switch chunk {
            case "fmt ":
                guard declared <= available else {
                    throw .chunkOverrunsFile(chunk: chunk, declaredBytes: declared, availableBytes: available)
                }
                parsedFormat = try Self.parseFormat(bytes, at: bodyStart, count: declared)
            case "data":
                guard let (format, sampleFormat, blockAlign) = parsedFormat else { throw .missingFormatChunk }
                // Streaming writers that never went back to patch the header leave 0 or
                // 0xFFFFFFFF here; for those the data runs to the end of the file.
                let isUnpatched = declared == 0 || declared == 0xFFFF_FFFF
                let dataBytes = isUnpatched ? available - available % blockAlign : declared
                guard dataBytes <= available else {
                    throw .chunkOverrunsFile(chunk: chunk, declaredBytes: declared, availableBytes: available)
                }
                guard dataBytes % blockAlign == 0 else {
                    throw .partialFrame(dataBytes: dataBytes, blockAlign: blockAlign)
                }
                self.format = format
                self.sampleFormat = sampleFormat
                self.dataOffset = bodyStart
                self.dataByteCount = dataBytes
                return
            default:
                guard declared <= available else {
                    throw .chunkOverrunsFile(chunk: chunk, declaredBytes: declared, availableBytes: available)
                }
            }
            // Chunks are padded to an even length.
            offset = bodyStart + declared + (declared & 1)
        }
        throw parsedFormat == nil ? .missingFormatChunk : .missingDataChunk
    }

    private static func parseFormat(_ bytes: UnsafeRawBufferPointer, at start: Int, count: Int) throws(WAVError)
        -> (AudioFormat, SampleFormat, blockAlign: Int)
    {
        guard count >= 16 else { throw .formatChunkTooShort(byteCount: count) }
        var formatTag = Int(bytes.littleEndianUInt16(at: start))
        let channels = Int(bytes.littleEndianUInt16(at: start + 2))
        let sampleRate = Int(bytes.littleEndianUInt32(at: start + 4))
        let blockAlign = Int(bytes.littleEndianUInt16(at: start + 12))
        let bitsPerSample = Int(bytes.littleEndianUInt16(at: start + 14))
        // WAVE_FORMAT_EXTENSIBLE carries the real tag in the first two bytes of its subformat GUID.
        if formatTag == 0xFFFE, count >= 26 {
            formatTag = Int(bytes.littleEndianUInt16(at: start + 24))
        }
        let sampleFormat: SampleFormat
        switch (formatTag, bitsPerSample) {
        case (1, 16): sampleFormat = .int16
        case (3, 32): sampleFormat = .float32
        default: throw .unsupportedEncoding(formatTag: formatTag, bitsPerSample: bitsPerSample)
        }
        guard channels == 1 || channels == 2 else { throw .invalidChannelCount(channels) }
        guard (1_000...384_000).contains(sampleRate) else { throw .invalidSampleRate(sampleRate) }
        let expectedAlign = channels * sampleFormat.bytesPerSample
        guard blockAlign == expectedAlign else {
            throw .inconsistentBlockAlign(declared: blockAlign, expected: expectedAlign)
        }
        return (AudioFormat(sampleRate: sampleRate, channels: channels), sampleFormat, blockAlign)
    }

    /// A canonical 44-byte header for `frameCount` frames.
    public static func encode(format: AudioFormat, sampleFormat: SampleFormat, frameCount: Int) -> [UInt8] {
        let blockAlign = format.channels * sampleFormat.bytesPerSample
        let dataBytes = UInt32(clamping: frameCount * blockAlign)
        var header: [UInt8] = []
        header.reserveCapacity(canonicalByteCount)
        header.append(contentsOf: Array("RIFF".utf8))
        header.appendLittleEndian(UInt32(clamping: 36 + Int(dataBytes)))
        header.append(contentsOf: Array("WAVEfmt ".utf8))
        header.appendLittleEndian(UInt32(16))
        header.appendLittleEndian(UInt16(sampleFormat == .int16 ? 1 : 3))
        header.appendLittleEndian(UInt16(format.channels))
        header.appendLittleEndian(UInt32(format.sampleRate))
        header.appendLittleEndian(UInt32(format.sampleRate * blockAlign))
        header.appendLittleEndian(UInt16(blockAlign))
        header.appendLittleEndian(UInt16(sampleFormat.bytesPerSample * 8))
        header.append(contentsOf: Array("data".utf8))
        header.appendLittleEndian(dataBytes)
        return header
    }
}

extension WAVAudio {
    /// Decodes a whole WAV file held in memory.
    public init(decoding bytes: [UInt8]) throws(WAVError) {
        let result: Result<WAVAudio, WAVError> = bytes.withUnsafeBytes { raw in
            do throws(WAVError) {
                let header = try WAVHeader(parsing: raw)
                let data = UnsafeRawBufferPointer(
                    rebasing: raw[header.dataOffset..<header.dataOffset + header.dataByteCount])
                return .success(
                    WAVAudio(
                        format: header.format, sampleFormat: header.sampleFormat,
                        samples: Self.decodeSamples(data, as: header.sampleFormat)))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    /// Reads and decodes the WAV file at `path`.
    public init(contentsOfFile path: String) throws(WAVError) {
        if let problem = Self.problem(reading: path) { throw .unreadable(path: path, reason: problem) }
        let bytes: [UInt8]
        do {
            bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .unreadable(path: path, reason: Self.describe(error))
        }
        try self.init(decoding: bytes)
    }

    /// The complete file: a canonical header followed by the samples in `sampleFormat`.
    public func encoded() -> [UInt8] {
        var bytes = WAVHeader.encode(format: format, sampleFormat: sampleFormat, frameCount: frameCount)
        bytes.reserveCapacity(bytes.count + samples.count * sampleFormat.bytesPerSample)
        Self.appendSamples(samples[...], as: sampleFormat, to: &bytes)
        return bytes
    }

    /// Writes the file to `path`, replacing what was there.
    public func write(toFile path: String) throws(WAVError) {
        do {
            try Data(encoded()).write(to: URL(fileURLWithPath: path))
        } catch {
            throw .unwritable(path: path, reason: Self.describe(error))
        }
    }

    /// Samples encoded as little-endian int16 or float32 bytes, appended to `bytes`.
    public static func appendSamples(
        _ samples: ArraySlice<Float>, as sampleFormat: SampleFormat, to bytes: inout [UInt8]
    ) {
        switch sampleFormat {
        case .int16:
            for sample in samples {
                bytes.appendLittleEndian(UInt16(bitPattern: SampleConversion.int16(fromFloat: sample)))
            }
        case .float32:
            for sample in samples { bytes.appendLittleEndian(sample.bitPattern) }
        }
    }

    static func decodeSamples(_ data: UnsafeRawBufferPointer, as sampleFormat: SampleFormat) -> [Float] {
        switch sampleFormat {
        case .int16:
            return (0..<data.count / 2).map { index in
                Float(Int16(bitPattern: data.littleEndianUInt16(at: index * 2))) / SampleConversion.int16Scale
            }
        case .float32:
            return (0..<data.count / 4).map { index in Float(bitPattern: data.littleEndianUInt32(at: index * 4)) }
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let cocoa = error as? CocoaError, let underlying = cocoa.userInfo["NSUnderlyingError"] {
            return "\(underlying)"
        }
        return "\(error)"
    }

    /// Why `path` cannot be read as a WAV file before its bytes are tried, in the system's words:
    /// a folder, a device or a pipe, or a file this user may not read.
    static func problem(reading path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            return access(path, R_OK) == 0 ? nil : String(cString: strerror(errno))
        case S_IFDIR: return "it is a directory, not a WAV file"
        default: return "it is not a regular file (a device, a pipe or a socket); name a WAV file"
        }
    }
}

extension UnsafeRawBufferPointer {
    @inline(__always)
    fileprivate func fourCC(at offset: Int) -> String {
        String(decoding: self[offset..<offset + 4], as: UTF8.self)
    }

    @inline(__always)
    fileprivate func littleEndianUInt16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    @inline(__always)
    fileprivate func littleEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16
            | UInt32(self[offset + 3]) << 24
    }
}

extension Array where Element == UInt8 {
    @inline(__always)
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
