import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Engines whose game owns the audio, found by handle without a lock: `vc_engine_process` runs on
/// the game's audio thread, which must never wait for a control thread holding the handle
/// registry. A slot is entered by counting itself busy and then checking its handle (both
/// sequentially consistent, against the remover's store-then-check), so a removed engine is never
/// used and never freed while in use.
/// How many engines with game-owned audio a process may have at once.
let gameAudioSlotCount = 64

final class GameAudioSlots<Object: AnyObject>: @unchecked Sendable {

    private let handles: UnsafeMutablePointer<Atomic<UInt>>
    private let busy: UnsafeMutablePointer<Atomic<Int>>
    /// Written only while the slot's handle is 0 and nobody is inside it, under `changes`.
    private let devices: UnsafeMutablePointer<Object?>
    private let changes = Mutex(())

    init() {
        handles = .allocate(capacity: gameAudioSlotCount)
        busy = .allocate(capacity: gameAudioSlotCount)
        devices = .allocate(capacity: gameAudioSlotCount)
        for slot in 0..<gameAudioSlotCount {
            (handles + slot).initialize(to: Atomic(0))
            (busy + slot).initialize(to: Atomic(0))
            (devices + slot).initialize(to: nil)
        }
    }

    /// Makes `device` reachable by `handle`; false when every slot is taken.
    func add(_ device: Object, handle: OpaquePointer) -> Bool {
        changes.withLock { _ in
            guard let slot = (0..<gameAudioSlotCount).first(where: { handles[$0].load(ordering: .relaxed) == 0 }) else {
                return false
            }
            devices[slot] = device
            handles[slot].store(Self.number(handle), ordering: .sequentiallyConsistent)
            return true
        }
    }

    /// Runs `body` with the device of `handle`; false when it has none.
    func withDevice(_ handle: OpaquePointer, _ body: (Object) -> Void) -> Bool {
        let number = Self.number(handle)
        for slot in 0..<gameAudioSlotCount where handles[slot].load(ordering: .relaxed) == number {
            busy[slot].add(1, ordering: .sequentiallyConsistent)
            defer { busy[slot].subtract(1, ordering: .sequentiallyConsistent) }
            guard handles[slot].load(ordering: .sequentiallyConsistent) == number, let device = devices[slot] else {
                return false
            }
            body(device)
            return true
        }
        return false
    }

    /// Makes `handle`'s device unreachable, once no thread is inside it.
    func remove(_ handle: OpaquePointer) {
        let number = Self.number(handle)
        changes.withLock { _ in
            for slot in 0..<gameAudioSlotCount where handles[slot].load(ordering: .relaxed) == number {
                handles[slot].store(0, ordering: .sequentiallyConsistent)
                while busy[slot].load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
                devices[slot] = nil
            }
        }
    }

    private static func number(_ handle: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
    }
}
