/// The rate the engine runs at. Devices and files at other rates are resampled to it.
public let engineSampleRate = 48_000

/// How many engine (48 kHz) frames `frames` at a device's `sampleRate` become, rounded up: the
/// room one device period needs on the engine's side.
public func engineFrames(ofDeviceFrames frames: Int, sampleRate: Int) -> Int {
    let rate = max(sampleRate, 1)
    return (frames * engineSampleRate + rate - 1) / rate
}

/// How samples are stored in a device buffer or a file.
public enum SampleFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Signed 16-bit little-endian integers.
    case int16
    /// 32-bit IEEE floats in -1...1.
    case float32

    public var bytesPerSample: Int {
        switch self {
        case .int16: 2
        case .float32: 4
        }
    }

    public var description: String { rawValue }
}

/// The shape of an interleaved PCM stream: its rate and channel count.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// 48 kHz mono: what the codec and the mixer work in.
    public static let engineMono = AudioFormat(sampleRate: engineSampleRate, channels: 1)

    /// The number of frames (one sample per channel) in `duration` at this rate.
    public func frames(in duration: FrameDuration) -> Int {
        duration.frames(atSampleRate: sampleRate)
    }

    public var description: String {
        "\(sampleRate) Hz, \(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) channels")"
    }
}

/// The frame lengths the engine and Opus support. Opus accepts exactly these; the engine's
/// default is 20 ms, and 10 ms and 5 ms serve the low-latency mode.
public enum FrameDuration: Int, Sendable, CaseIterable, CustomStringConvertible {
    case ms2_5 = 25
    case ms5 = 50
    case ms10 = 100
    case ms20 = 200
    case ms40 = 400
    case ms60 = 600

    /// Parses a length in milliseconds such as `20` or `2.5`.
    public init?(milliseconds: Double) {
        guard let match = Self.allCases.first(where: { $0.milliseconds == milliseconds }) else { return nil }
        self = match
    }

    public var milliseconds: Double { Double(rawValue) / 10 }

    /// Frames per channel at `sampleRate`. Exact for 8, 12, 16, 24 and 48 kHz.
    public func frames(atSampleRate sampleRate: Int) -> Int {
        sampleRate * rawValue / 10_000
    }

    /// Frames per channel at the engine's 48 kHz.
    public var engineFrames: Int { frames(atSampleRate: engineSampleRate) }

    public var description: String {
        rawValue % 10 == 0 ? "\(rawValue / 10) ms" : "\(milliseconds) ms"
    }
}
