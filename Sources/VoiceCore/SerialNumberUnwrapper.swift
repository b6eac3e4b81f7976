/// Extends a wrapping serial number (a 16-bit RTP-like sequence number or a 32-bit media
/// timestamp) into an Int64 that keeps counting across wraps, relative to the first value seen.
///
/// Each new value is placed at the nearest position to the newest value so far (serial-number
/// arithmetic, RFC 1982): a step of less than half the range forward is progress, a step back
/// is a reordered or late value. The newest value only moves forward.
public struct SerialNumberUnwrapper<Value: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable {
    private var newestRaw: Value = 0
    /// The unwrapped value of the newest (highest) serial number seen; 0 for the first.
    public private(set) var newest: Int64 = 0
    public private(set) var hasValue = false

    public init() {}

    /// The unwrapped position of `value`, without remembering it.
    public func position(of value: Value) -> Int64 {
        guard hasValue else { return 0 }
        let forward = value &- newestRaw
        let half = Value(1) << (Value.bitWidth - 1)
        // The difference as a signed step: forward when under half the range, backward otherwise.
        if forward < half {
            return newest + Int64(forward)
        }
        return newest - Int64(newestRaw &- value)
    }

    /// Unwraps `value` and, if it is the newest so far, remembers it.
    @discardableResult
    public mutating func unwrap(_ value: Value) -> Int64 {
        let unwrapped = position(of: value)
        if !hasValue || unwrapped > newest {
            newest = unwrapped
            newestRaw = value
            hasValue = true
        }
        return unwrapped
    }

    /// The raw (wrapped) form of the newest value.
    public var newestValue: Value { newestRaw }

    public mutating func reset() {
        newestRaw = 0
        newest = 0
        hasValue = false
    }
}
