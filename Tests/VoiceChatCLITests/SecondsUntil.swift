import Foundation

/// Polls `condition` every 50 ms for up to `seconds`; returns how long it took to hold, or nil if
/// it never did (for what other processes do, which no virtual clock drives).
func secondsUntil(within seconds: Double, _ condition: () throws -> Bool) rethrows -> Double? {
    let start = Date()
    while Date().timeIntervalSince(start) < seconds {
        if try condition() { return Date().timeIntervalSince(start) }
        usleep(50_000)
    }
    return nil
}
