/// The smallest value recorded over the last one to two windows of time: the current window's
/// and the one before it, so that the minimum follows a baseline that moves (two clocks drifting
/// apart) within seconds instead of holding the smallest value ever seen.
public struct WindowedMinimum: Sendable {
    public let window: MediaTime
    private var current: MediaTime?
    private var previous: MediaTime?
    private var currentStart: MediaTime = 0

    public init(window: MediaTime) {
        self.window = max(window, 1)
    }

    /// The smallest value in the current and previous window; nil before the first.
    public var value: MediaTime? {
        switch (current, previous) {
        case let (current?, previous?): min(current, previous)
        case let (current?, nil): current
        case let (nil, previous?): previous
        case (nil, nil): nil
        }
    }

    public mutating func record(_ value: MediaTime, at now: MediaTime) {
        if current == nil || now - currentStart >= window {
            previous = current
            current = value
            currentStart = now
        } else if let minimum = current, value < minimum {
            current = value
        }
    }

    /// Forgets every value: the next one starts a new window.
    public mutating func reset() {
        current = nil
        previous = nil
    }
}
