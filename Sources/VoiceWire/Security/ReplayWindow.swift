/// Which message counters of one key were already opened, over the last `width` counters.
///
/// A bitmap of 64-bit words used as a ring, indexed by `counter / 64` (the scheme of RFC 6479 and
/// WireGuard): moving forward clears only the words it skips, so a jump of any size costs at most
/// one pass over the bitmap and no shifting. One word more than `width` needs is kept, so every
/// counter within `width` of the highest one is remembered exactly.
///
/// `check` never changes anything; `accept` records a counter. Callers check, authenticate, then
/// accept, so a forged envelope cannot move the window.
public struct ReplayWindow: Sendable, Equatable {
    /// How many counters up to and including the highest accepted one are remembered.
    public static let width = 1024

    private static let wordBits = 64
    private static let words = width / wordBits + 1

    private var bitmap = InlineArray<17, UInt64>(repeating: 0)
    /// The highest counter accepted so far; nil before the first.
    public private(set) var highestCounter: UInt64?

    public init() {
        assert(Self.words == bitmap.count)
    }

    /// Throws `.replayed` or `.tooOld` when `counter` must be refused; changes nothing.
    public func check(_ counter: UInt64) throws(SecurityError) {
        guard let highest = highestCounter, counter <= highest else { return }
        guard highest - counter < UInt64(Self.width) else { throw .tooOld(counter: counter) }
        let (word, bit) = Self.position(counter)
        if bitmap[word] & bit != 0 { throw .replayed(counter: counter) }
    }

    /// Records `counter` as opened. Call only after `check` passed and the envelope authenticated.
    public mutating func accept(_ counter: UInt64) {
        if let highest = highestCounter {
            if counter > highest {
                let currentBlock = highest / UInt64(Self.wordBits)
                let newBlock = counter / UInt64(Self.wordBits)
                // Clear the words of the blocks skipped over (all of them after a long jump).
                let skipped = min(newBlock - currentBlock, UInt64(Self.words))
                var block = newBlock
                for _ in 0..<skipped {
                    bitmap[Int(block % UInt64(Self.words))] = 0
                    block &-= 1
                }
                highestCounter = counter
            } else if highest - counter >= UInt64(Self.width) {
                return
            }
        } else {
            for index in bitmap.indices { bitmap[index] = 0 }
            highestCounter = counter
        }
        let (word, bit) = Self.position(counter)
        bitmap[word] |= bit
    }

    @inline(__always)
    private static func position(_ counter: UInt64) -> (word: Int, bit: UInt64) {
        let block = counter / UInt64(wordBits)
        return (Int(block % UInt64(words)), 1 << (counter % UInt64(wordBits)))
    }

    public static func == (lhs: ReplayWindow, rhs: ReplayWindow) -> Bool {
        guard lhs.highestCounter == rhs.highestCounter else { return false }
        for index in lhs.bitmap.indices where lhs.bitmap[index] != rhs.bitmap[index] { return false }
        return true
    }
}
