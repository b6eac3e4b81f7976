import Dispatch
import Synchronization

/// Runs async `body` to its end for a C caller, which is a thread of its own and not one of
/// Swift's cooperative pool, and so may wait for it.
func waitFor<Value: Sendable>(_ body: @escaping @Sendable () async throws(CallFailure) -> Value) throws(CallFailure)
    -> Value
{
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Result<Value, CallFailure>?>(nil)
    Task {
        let result: Result<Value, CallFailure>
        do throws(CallFailure) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    // The task stored its outcome before signalling.
    return try outcome.withLock { $0! }.get()
}
