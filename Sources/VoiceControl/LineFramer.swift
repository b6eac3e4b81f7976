/// Splits a byte stream into lines ending in "\n" (a "\r" before it is dropped), holding at most
/// `maximumBytes` of an unfinished line: a longer line is reported once and skipped up to its end,
/// so a client cannot make the server buffer without bound.
struct LineFramer {
    enum Piece: Equatable {
        case line([UInt8])
        case overlong
    }

    let maximumBytes: Int
    private var pending: [UInt8] = []
    private var discarding = false

    init(maximumBytes: Int) { self.maximumBytes = maximumBytes }

    mutating func append(_ bytes: some Collection<UInt8>) -> [Piece] {
        var pieces: [Piece] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
            let chunk = rest[..<(newline ?? rest.endIndex)]
            if !discarding {
                if pending.count + chunk.count > maximumBytes {
                    discarding = true
                    pending.removeAll(keepingCapacity: false)
                    pieces.append(.overlong)
                } else {
                    pending.append(contentsOf: chunk)
                }
            }
            guard let newline else { break }
            if !discarding {
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                pieces.append(.line(pending))
            }
            pending.removeAll(keepingCapacity: true)
            discarding = false
            rest = rest[rest.index(after: newline)...]
        }
        return pieces
    }
}
