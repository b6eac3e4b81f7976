/// Watches a queue between two clocks (a device's and the engine thread's) and reports how much of
/// it has been standing still: audio that waited through a whole window without ever being needed.
///
/// After a stall (the machine paused the engine thread, or the device missed cycles) both sides go
/// on at the same rate, so what piled up meanwhile would add its length to every later frame's
/// delay for the rest of the call. Short jitter never counts: only the minimum over a window does,
/// and the queue is then trimmed by what was above `allowance` all that time.
struct StandingQueue {
    /// Samples the queue may always hold (e.g. one frame, for phase between the two clocks).
    let allowance: Int
    /// Observations per window.
    let window: Int
    private var observed = 0
    private var minimum = Int.max

    init(allowance: Int, window: Int) {
        self.allowance = allowance
        self.window = window
    }

    /// Records the queue's length now; at the end of each window returns the samples that stood
    /// above `allowance` all through it (0 when the queue drained to it at least once), and nil
    /// inside a window.
    mutating func observe(queued: Int) -> Int? {
        minimum = min(minimum, queued)
        observed += 1
        guard observed >= window else { return nil }
        defer { restart() }
        return max(0, minimum - allowance)
    }

    /// Starts a new window, forgetting what this one saw (the queue was just changed on purpose).
    mutating func restart() {
        observed = 0
        minimum = .max
    }
}
