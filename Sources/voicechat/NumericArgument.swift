import ArgumentParser

/// The one way a number on the command line becomes a value. Every numeric option of every
/// command parses through a `NumericArgument` (`@Option(parsing: .unconditional, transform:)`),
/// which refuses an empty or non-numeric text, nan, inf, a number outside the option's range and a
/// fraction where a whole number is due, before any conversion to the option's type, so that no
/// value can trap on its way in. ArgumentParser puts the option and the value in front of the
/// message, which says what the option takes; the command exits 64.
///
/// Options take their value unconditionally, so that `--drift-ppm -50` reads -50 rather than a
/// missing value.
struct NumericArgument: Sendable, CustomStringConvertible {
    /// The values the option takes.
    let range: ClosedRange<Double>
    /// Whether the range's lower end is itself refused (a timeout of 0 s is no timeout).
    let excludesLowerBound: Bool
    /// What the number counts, for the message ("ms", "seconds"); empty for a plain number.
    let unit: String

    /// How the range reads where its ends are too long to print as they are (a 64-bit seed's).
    let spelledRange: String?

    init(
        _ range: ClosedRange<Double>, unit: String = "", excludingLowerBound: Bool = false, spelledRange: String? = nil
    ) {
        self.range = range
        self.unit = unit
        self.excludesLowerBound = excludingLowerBound
        self.spelledRange = spelledRange
    }

    /// What the option takes, for messages and help: "0…10000 ms", "more than 0 and at most 120 seconds".
    var description: String {
        let unitSuffix = unit.isEmpty ? "" : " " + unit
        if let spelledRange { return spelledRange + unitSuffix }
        if excludesLowerBound {
            return
                "more than \(Self.format(range.lowerBound)) and at most \(Self.format(range.upperBound))\(unitSuffix)"
        }
        return "\(Self.format(range.lowerBound))…\(Self.format(range.upperBound))\(unitSuffix)"
    }

    /// The number `text` holds, checked against the range.
    func number(_ text: String) throws(ValidationError) -> Double {
        guard let number = Double(text) else {
            throw ValidationError("it is not a number; give \(description).")
        }
        guard number.isFinite else { throw ValidationError("it is not a finite number; give \(description).") }
        guard accepts(number) else { throw ValidationError("it must be \(description).") }
        return number
    }

    private func accepts(_ value: Double) -> Bool {
        range.contains(value) && !(excludesLowerBound && value == range.lowerBound)
    }

    /// A whole number of the option's type, checked against the range.
    func whole<Integer: FixedWidthInteger & Sendable>(_ text: String) throws(ValidationError) -> Integer {
        // Exact first, for values past what a Double holds exactly (a 64-bit seed).
        if let exact = Integer(text), accepts(Double(exact)) { return exact }
        let value = try number(text)
        guard let exact = Integer(exactly: value) else {
            throw ValidationError("it must be a whole number, \(description).")
        }
        return exact
    }

    var double: @Sendable (String) throws -> Double { { text in try number(text) } }
    var float: @Sendable (String) throws -> Float { { text in Float(try number(text)) } }
    var int: @Sendable (String) throws -> Int { { text in try whole(text) } }
    var uint64: @Sendable (String) throws -> UInt64 { { text in try whole(text) } }

    /// A number as a person writes it: 20, not 20.0; 2.5 stays 2.5.
    static func format(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

extension NumericArgument {
    /// Seconds a run may last (`--duration`): more than 0 and at most a year.
    static let duration = NumericArgument(0...31_536_000, unit: "seconds", excludingLowerBound: true)
    /// A TCP or UDP port to listen on or connect to.
    static let port = NumericArgument(1...65_535)
    /// Seconds to wait for a connection and its hello.
    static let connectTimeout = NumericArgument(0...120, unit: "seconds", excludingLowerBound: true)
}
