import CVoiceChatABI
import Synchronization

/// The handles the library gave out and has not taken back, so that a destroyed (or made-up)
/// handle is refused without ever being dereferenced. A handle is a number, never an address,
/// and never given out twice, so a destroyed one cannot come to name a newer object.
final class HandleRegistry<Object: AnyObject & Sendable>: Sendable {
    private let state = Mutex<(live: [UInt: Object], next: UInt)>(([:], 0x1_0000))

    /// A new handle for `object`, kept until `remove`.
    func add(_ object: Object) -> OpaquePointer {
        let number = state.withLock { state in
            let number = state.next
            state.next += 16
            state.live[number] = object
            return number
        }
        return OpaquePointer(bitPattern: number)!
    }

    /// The object behind `handle`, or a refusal naming `argument`.
    func object(_ handle: OpaquePointer?, _ argument: String) throws(CallFailure) -> Object {
        guard let handle else { throw .invalidArgument("\(argument) is NULL") }
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        guard let object = state.withLock({ $0.live[address] }) else {
            throw CallFailure(
                VC_ERROR_INVALID_HANDLE,
                "\(argument) is not a live handle: it was destroyed, or never made by this library")
        }
        return object
    }

    /// Forgets `handle`; returns its object, or nil if it was not live.
    func remove(_ handle: OpaquePointer?) -> Object? {
        guard let handle else { return nil }
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        return state.withLock { $0.live.removeValue(forKey: address) }
    }
}
