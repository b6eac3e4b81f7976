import VoiceCore

/// Turns a level (a `LevelMeter`'s RMS in dBFS) into speaking/silent states with hysteresis,
/// for "player is speaking" indicators.
///
/// A single threshold would flicker on every syllable; here speaking starts as soon as the level
/// reaches `startThresholdDBFS` and stops only after it has stayed below the lower
/// `stopThresholdDBFS` for `holdSeconds`. Levels between the two thresholds keep the current
/// state. `update` reports each change once, as a transition.
public struct SpeakingDetector: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var startThresholdDBFS: Float
        /// Must be below `startThresholdDBFS`.
        public var stopThresholdDBFS: Float
        /// How long the level must stay below the stop threshold before speaking stops.
        public var holdSeconds: Double

        public init(startThresholdDBFS: Float = -40, stopThresholdDBFS: Float = -50, holdSeconds: Double = 0.3) {
            self.startThresholdDBFS = startThresholdDBFS
            self.stopThresholdDBFS = stopThresholdDBFS
            self.holdSeconds = holdSeconds
        }

        public func validate() throws(DSPSettingError) {
            try DSPSettingError.check(
                startThresholdDBFS, in: -120...0, component: "SpeakingDetector", setting: "startThresholdDBFS",
                unit: " dBFS")
            try DSPSettingError.check(
                stopThresholdDBFS, in: -120...0, component: "SpeakingDetector", setting: "stopThresholdDBFS",
                unit: " dBFS")
            guard stopThresholdDBFS < startThresholdDBFS else {
                throw DSPSettingError(
                    component: "SpeakingDetector", setting: "stopThresholdDBFS", value: "\(stopThresholdDBFS) dBFS",
                    allowed: "a level below startThresholdDBFS (\(startThresholdDBFS) dBFS)")
            }
            try DSPSettingError.check(
                holdSeconds, in: 0...10, component: "SpeakingDetector", setting: "holdSeconds", unit: " s")
        }
    }

    public enum Transition: Sendable, Hashable {
        case started
        case stopped
    }

    public let configuration: Configuration
    public private(set) var isSpeaking = false
    private var quietSeconds: Double = 0

    public init(_ configuration: Configuration) throws(DSPSettingError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// The default thresholds (−40 / −50 dBFS, 300 ms hold), which are valid by construction.
    public init() {
        configuration = Configuration()
    }

    /// Folds in the level measured over the last `elapsedSeconds` and returns the transition it
    /// caused, if any.
    public mutating func update(levelDBFS: Float, elapsedSeconds: Double) -> Transition? {
        if !isSpeaking {
            guard levelDBFS >= configuration.startThresholdDBFS else { return nil }
            isSpeaking = true
            quietSeconds = 0
            return .started
        }
        guard levelDBFS < configuration.stopThresholdDBFS else {
            quietSeconds = 0
            return nil
        }
        quietSeconds += elapsedSeconds
        // The tolerance keeps a hold that is a whole number of frames from needing one frame more
        // because of rounding in the sum.
        guard quietSeconds >= configuration.holdSeconds - 1e-9 else { return nil }
        isSpeaking = false
        quietSeconds = 0
        return .stopped
    }

    /// Back to silent, without reporting a transition.
    public mutating func reset() {
        isSpeaking = false
        quietSeconds = 0
    }
}
