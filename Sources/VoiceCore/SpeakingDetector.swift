/// Decides whether a signal is speech or silence from its level, with hysteresis.
///
/// A single threshold makes the state flicker on every syllable and every breath near it. Two
/// thresholds (start above stop) and a hold time after the level falls under the stop threshold
/// give one transition per utterance: the state turns on as soon as the level rises above
/// `startThresholdDBFS`, and turns off only after the level has stayed under
/// `stopThresholdDBFS` for `holdSeconds`. Pure arithmetic: safe on any audio path.
public struct SpeakingDetector: Sendable, Hashable {
    public var startThresholdDBFS: Float
    public var stopThresholdDBFS: Float
    public var holdSeconds: Double

    public private(set) var isSpeaking = false
    private var quietSeconds: Double = 0

    public init(startThresholdDBFS: Float = -45, stopThresholdDBFS: Float = -55, holdSeconds: Double = 0.3) {
        self.startThresholdDBFS = startThresholdDBFS
        self.stopThresholdDBFS = min(stopThresholdDBFS, startThresholdDBFS)
        self.holdSeconds = holdSeconds
    }

    /// Folds in a level measured over `elapsedSeconds` (e.g. a meter's RMS after one frame) and
    /// returns true when `isSpeaking` changed.
    public mutating func update(levelDBFS: Float, elapsedSeconds: Double) -> Bool {
        if isSpeaking {
            if levelDBFS < stopThresholdDBFS {
                quietSeconds += elapsedSeconds
                if quietSeconds >= holdSeconds {
                    isSpeaking = false
                    return true
                }
            } else {
                quietSeconds = 0
            }
            return false
        }
        if levelDBFS >= startThresholdDBFS {
            isSpeaking = true
            quietSeconds = 0
            return true
        }
        return false
    }

    /// Back to silence, e.g. when a stream restarts.
    public mutating func reset() {
        isSpeaking = false
        quietSeconds = 0
    }
}
