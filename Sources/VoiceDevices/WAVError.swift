/// What is wrong with bytes that were supposed to be a WAV file. Each case says what was
/// found, so the message can tell the user exactly how the file departs from what is read.
public enum WAVError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer bytes than a RIFF header (12) plus a format chunk.
    case tooShort(byteCount: Int)
    /// The file does not start with "RIFF"/"WAVE" (e.g. it is raw PCM, MP3 or Ogg).
    case notRIFFWave
    /// A chunk header says the chunk runs past the end of the file.
    case chunkOverrunsFile(chunk: String, declaredBytes: Int, availableBytes: Int)
    case missingFormatChunk
    case missingDataChunk
    /// The format chunk is shorter than the 16 bytes every WAV format chunk has.
    case formatChunkTooShort(byteCount: Int)
    /// Not 16-bit integer PCM nor 32-bit float, the two encodings this project reads.
    case unsupportedEncoding(formatTag: Int, bitsPerSample: Int)
    case invalidChannelCount(Int)
    case invalidSampleRate(Int)
    /// The block alignment does not match channels × bytes per sample.
    case inconsistentBlockAlign(declared: Int, expected: Int)
    /// The data chunk ends in the middle of a frame.
    case partialFrame(dataBytes: Int, blockAlign: Int)
    /// Reading the file from disk failed.
    case unreadable(path: String, reason: String)
    /// Writing the file to disk failed.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .tooShort(let count):
            "only \(count) bytes: a WAV file needs at least a 12-byte RIFF header and a format chunk"
        case .notRIFFWave:
            "not a WAV file: it does not start with a RIFF/WAVE header (convert it, e.g. `sox in.mp3 out.wav`)"
        case .chunkOverrunsFile(let chunk, let declared, let available):
            "truncated: the '\(chunk)' chunk declares \(declared) bytes but only \(available) remain in the file"
        case .missingFormatChunk:
            "no 'fmt ' chunk: the file does not say how its samples are encoded"
        case .missingDataChunk:
            "no 'data' chunk: the file holds no audio"
        case .formatChunkTooShort(let count):
            "the 'fmt ' chunk has \(count) bytes; it needs at least 16"
        case .unsupportedEncoding(let tag, let bits):
            "unsupported encoding (format tag \(tag), \(bits) bits per sample): use 16-bit PCM or 32-bit float"
                + " (e.g. `sox in.wav -b 16 -e signed-integer out.wav`)"
        case .invalidChannelCount(let count):
            "\(count) channels: only mono and stereo are supported"
        case .invalidSampleRate(let rate):
            "sample rate \(rate) Hz is outside 1000…384000 Hz"
        case .inconsistentBlockAlign(let declared, let expected):
            "block align is \(declared) bytes but channels × sample size is \(expected): the header is corrupt"
        case .partialFrame(let bytes, let align):
            "the data chunk (\(bytes) bytes) is not a whole number of \(align)-byte frames: the file is truncated"
        case .unreadable(let path, let reason):
            "cannot read '\(path)': \(reason)"
        case .unwritable(let path, let reason):
            "cannot write '\(path)': \(reason)"
        }
    }
}
