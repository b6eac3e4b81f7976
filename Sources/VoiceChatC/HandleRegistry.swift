import CVoiceChatABI
import Synchronization

/// The handles the library gave out and has not taken back, so that a destroyed (or made-up)
/// handle is refused without ever being dereferenced. A handle is a number, never an address,
/// and never given out twice, so a destroyed one cannot come to name a newer object. Each kind
/// of handle has numbers of its own (`kind` is their remainder by 16), so one kind passed for
/// another is refused too.
final class HandleRegistry<Object: AnyObject & Sendable>: Sendable {
    private let state: Mutex<(live: [UInt: Object], next: UInt)>

    init(kind: UInt) {
        state = Mutex(([:], 0x1_0000 + kind * 4))
    }

    /// A new handle for `object`, kept until `remove`.
    func add(_ object: Object) -> OpaquePointer {
        let handle = reserve()
        add(object, as: handle)
        return handle
    }

    /// A handle not yet given to anything, for an object that must know its handle before it
    /// exists (its events name it); `add(_:as:)` makes it live.
    func reserve() -> OpaquePointer {
        let number = state.withLock { state in
            defer { state.next += 16 }
            return state.next
        }
        return OpaquePointer(bitPattern: number)!
    }

    func add(_ object: Object, as handle: OpaquePointer) {
        state.withLock { $0.live[Self.number(handle)] = object }
    }

    /// Every live object.
    var all: [Object] { state.withLock { Array($0.live.values) } }

    /// The object behind `handle`, or a refusal naming `argument`.
    func object(_ handle: OpaquePointer?, _ argument: String) throws(CallFailure) -> Object {
        guard let handle else { throw .invalidArgument("\(argument) is NULL") }
        guard let object = state.withLock({ $0.live[Self.number(handle)] }) else {
            throw CallFailure(
                VC_ERROR_INVALID_HANDLE,
                "\(argument) is not a live handle: it was destroyed, or never made by this library")
        }
        return object
    }

    /// Forgets `handle`; returns its object, or nil if it was not live.
    func remove(_ handle: OpaquePointer?) -> Object? {
        guard let handle else { return nil }
        return state.withLock { $0.live.removeValue(forKey: Self.number(handle)) }
    }

    static func number(_ handle: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
    }
}
