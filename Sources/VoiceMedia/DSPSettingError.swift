import VoiceCore

/// A setting of a signal-processing component (speech gate, limiter, speaking detector) outside
/// the range that component can work with.
public struct DSPSettingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The component being configured, e.g. `SpeechGate`.
    public var component: String
    /// The setting's name, as in the component's configuration.
    public var setting: String
    /// The value given, as text.
    public var value: String
    /// What would be accepted.
    public var allowed: String

    public init(component: String, setting: String, value: String, allowed: String) {
        self.component = component
        self.setting = setting
        self.value = value
        self.allowed = allowed
    }

    public var description: String {
        "\(component): \(setting) = \(value) is out of range; use \(allowed)"
    }

    /// Throws unless `value` is a finite number within `range`.
    static func check<Value: BinaryFloatingPoint>(
        _ value: Value, in range: ClosedRange<Value>, component: String, setting: String, unit: String = ""
    ) throws(DSPSettingError) {
        guard value.isFinite, range.contains(value) else {
            throw DSPSettingError(
                component: component, setting: setting, value: "\(value)\(unit)",
                allowed: "\(range.lowerBound)…\(range.upperBound)\(unit)")
        }
    }
}
