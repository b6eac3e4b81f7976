import CVoiceOpus
import VoiceCore

extension OpusEncoder {
    /// Everything an encoder is created with. Every field is checked by `validate()` before any
    /// C call is made, and each one that libopus can change at run time has a setter on
    /// `OpusEncoder`.
    ///
    /// The defaults are for game voice over lossy UDP: speech-tuned SILK/hybrid coding (`.voip`),
    /// 48 kHz mono, 20 ms frames (Opus's sweet spot between header overhead and latency),
    /// the engine's shipped bitrate and complexity (`VoiceDefaults`),
    /// constrained VBR (cheaper silence, yet packets stay near the nominal size so bursts do not
    /// overrun a congested link), in-band FEC on with a 10 % loss hint (one lost packet in a row
    /// is the common case on Wi-Fi and mobile links and FEC recovers it at the next packet),
    /// DTX off (the engine gates silence itself and a steady packet flow keeps the jitter
    /// buffer fed), signal `.voice` and no bandwidth cap.
    public struct Configuration: Sendable, Hashable {
        /// What libopus tunes its coding for.
        public enum Application: Sendable, Hashable, CaseIterable {
            /// Speech: SILK or hybrid coding, best intelligibility per bit.
            case voip
            /// CELT only: the lowest algorithmic delay (2.5 ms less lookahead), no in-band FEC.
            case restrictedLowDelay

            var opusValue: Int32 {
                switch self {
                case .voip: OPUS_APPLICATION_VOIP
                case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
                }
            }

            /// How much input libopus holds back, in ms, whatever the frame length: CELT's 2.5 ms,
            /// and in `.voip` 4 ms more for a switch to SILK (`OpusEncoder.lookahead` reports it).
            public var lookaheadMilliseconds: Double {
                switch self {
                case .voip: 6.5
                case .restrictedLowDelay: 2.5
                }
            }
        }

        /// How the bitrate may vary from packet to packet.
        public enum BitrateMode: Sendable, Hashable, CaseIterable {
            /// Unconstrained VBR: size follows the signal's difficulty.
            case variable
            /// VBR that stays close to the nominal rate over short spans.
            case constrainedVariable
            /// CBR: every packet of a frame length has the same size.
            case constant
        }

        /// A hint about what is being encoded.
        public enum Signal: Sendable, Hashable, CaseIterable {
            /// Let libopus detect voice or music.
            case auto
            case voice
            case music

            var opusValue: Int32 {
                switch self {
                case .auto: OPUS_AUTO
                case .voice: OPUS_SIGNAL_VOICE
                case .music: OPUS_SIGNAL_MUSIC
                }
            }
        }

        /// Sample rates libopus encodes from.
        public static let allowedSampleRates = [8_000, 12_000, 16_000, 24_000, 48_000]
        /// Bitrates libopus accepts, in bit/s.
        public static let allowedBitrates = 6_000...510_000
        public static let allowedComplexities = 0...10
        public static let allowedPacketLossPercents = 0...100

        public var application: Application
        /// Input rate in Hz: 8000, 12000, 16000, 24000 or 48000.
        public var sampleRate: Int
        /// 1 (mono) or 2 (stereo, interleaved).
        public var channels: Int
        public var frameDuration: FrameDuration
        /// Target bitrate in bit/s, 6000…510000.
        public var bitrate: Int
        /// 0 (cheapest) … 10 (best).
        public var complexity: Int
        public var bitrateMode: BitrateMode
        /// Discontinuous transmission: during silence, send a tiny packet about every 400 ms.
        public var dtx: Bool
        /// Carry a low-bitrate copy of each frame in the next packet (SILK and hybrid modes only).
        public var inbandFEC: Bool
        /// Expected packet loss, 0…100 %. Makes libopus spend bits on robustness and decides
        /// whether in-band FEC is actually emitted.
        public var packetLossPercent: Int
        public var signal: Signal
        /// The widest band the encoder may use; it picks narrower bands for low bitrates anyway.
        public var maxBandwidth: OpusBandwidth

        public init(
            application: Application = .voip,
            sampleRate: Int = engineSampleRate,
            channels: Int = 1,
            frameDuration: FrameDuration = VoiceDefaults.frameDuration,
            bitrate: Int = VoiceDefaults.bitrate,
            complexity: Int = VoiceDefaults.complexity,
            bitrateMode: BitrateMode = .constrainedVariable,
            dtx: Bool = false,
            inbandFEC: Bool = true,
            packetLossPercent: Int = 10,
            signal: Signal = .voice,
            maxBandwidth: OpusBandwidth = .fullband
        ) {
            self.application = application
            self.sampleRate = sampleRate
            self.channels = channels
            self.frameDuration = frameDuration
            self.bitrate = bitrate
            self.complexity = complexity
            self.bitrateMode = bitrateMode
            self.dtx = dtx
            self.inbandFEC = inbandFEC
            self.packetLossPercent = packetLossPercent
            self.signal = signal
            self.maxBandwidth = maxBandwidth
        }

        /// Samples per channel in one frame at `sampleRate`.
        public var frameSamples: Int { frameDuration.frames(atSampleRate: sampleRate) }

        /// Throws `.invalidArgument` naming the first setting outside what libopus accepts.
        public func validate(operation: String = "OpusEncoder.Configuration.validate") throws(CodecError) {
            guard Self.allowedSampleRates.contains(sampleRate) else {
                throw .invalidSetting(
                    operation, setting: "sampleRate", value: "\(sampleRate) Hz",
                    allowed: "8000, 12000, 16000, 24000 or 48000 Hz")
            }
            guard channels == 1 || channels == 2 else {
                throw .invalidSetting(operation, setting: "channels", value: "\(channels)", allowed: "1 or 2")
            }
            try Self.validateBitrate(bitrate, operation: operation)
            try Self.validateComplexity(complexity, operation: operation)
            try Self.validatePacketLossPercent(packetLossPercent, operation: operation)
        }

        static func validateBitrate(_ bitrate: Int, operation: String) throws(CodecError) {
            guard allowedBitrates.contains(bitrate) else {
                throw .invalidSetting(
                    operation, setting: "bitrate", value: "\(bitrate) bit/s", allowed: "6000…510000 bit/s")
            }
        }

        static func validateComplexity(_ complexity: Int, operation: String) throws(CodecError) {
            guard allowedComplexities.contains(complexity) else {
                throw .invalidSetting(operation, setting: "complexity", value: "\(complexity)", allowed: "0…10")
            }
        }

        static func validatePacketLossPercent(_ percent: Int, operation: String) throws(CodecError) {
            guard allowedPacketLossPercents.contains(percent) else {
                throw .invalidSetting(
                    operation, setting: "packetLossPercent", value: "\(percent) %", allowed: "0…100 %")
            }
        }
    }
}
