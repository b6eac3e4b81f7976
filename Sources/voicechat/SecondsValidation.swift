import ArgumentParser

/// The longest `--duration` a command takes: a year. Nothing needs more, and a number of seconds
/// far beyond it (1e300) no clock can hold.
let maximumDurationSeconds = 31_536_000.0

/// Refuses a number of seconds that is not finite, not above 0 (0 too, with `allowingZero`), or
/// above `maximum`, naming the option and what it takes.
func validateSeconds(
    _ seconds: Double, option: String, maximum: Double = maximumDurationSeconds, allowingZero: Bool = false
) throws {
    guard seconds.isFinite, allowingZero ? seconds >= 0 : seconds > 0, seconds <= maximum else {
        let lowest = allowingZero ? "0 or more" : "more than 0"
        throw ValidationError(
            "\(option) must be a number of seconds, \(lowest) and at most \(Int(maximum)), not \(seconds).")
    }
}
