/// Polls `condition` every `interval` for up to `seconds` of real time, for tests that wait on
/// other threads or sockets; returns whether it held, checking once more at the deadline.
public func eventually(
    within seconds: Double = 10, every interval: Duration = .milliseconds(20), _ condition: () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return condition()
}
