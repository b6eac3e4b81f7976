import CVoiceOpus

/// The audio bandwidth an Opus packet carries, from narrowband telephone speech to full band.
public enum OpusBandwidth: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 4 kHz audio bandwidth (8 kHz sampling).
    case narrowband
    /// 6 kHz (12 kHz sampling).
    case mediumband
    /// 8 kHz (16 kHz sampling): the usual wideband voice.
    case wideband
    /// 12 kHz (24 kHz sampling).
    case superwideband
    /// 20 kHz (48 kHz sampling).
    case fullband

    init?(opusValue: Int32) {
        switch opusValue {
        case OPUS_BANDWIDTH_NARROWBAND: self = .narrowband
        case OPUS_BANDWIDTH_MEDIUMBAND: self = .mediumband
        case OPUS_BANDWIDTH_WIDEBAND: self = .wideband
        case OPUS_BANDWIDTH_SUPERWIDEBAND: self = .superwideband
        case OPUS_BANDWIDTH_FULLBAND: self = .fullband
        default: return nil
        }
    }

    var opusValue: Int32 {
        switch self {
        case .narrowband: OPUS_BANDWIDTH_NARROWBAND
        case .mediumband: OPUS_BANDWIDTH_MEDIUMBAND
        case .wideband: OPUS_BANDWIDTH_WIDEBAND
        case .superwideband: OPUS_BANDWIDTH_SUPERWIDEBAND
        case .fullband: OPUS_BANDWIDTH_FULLBAND
        }
    }

    /// The highest audio frequency carried, in Hz.
    public var cutoffHz: Int {
        switch self {
        case .narrowband: 4_000
        case .mediumband: 6_000
        case .wideband: 8_000
        case .superwideband: 12_000
        case .fullband: 20_000
        }
    }

    public var description: String {
        switch self {
        case .narrowband: "narrowband"
        case .mediumband: "mediumband"
        case .wideband: "wideband"
        case .superwideband: "superwideband"
        case .fullband: "fullband"
        }
    }
}
