/// Where one service's or match's events go: an `AsyncStream` for code that awaits them, and an
/// optional handler for code that wants them at once. The engine delivers events after it has
/// released its lock, in the order they happened, so a handler may call back into the engine.
final class EventSink<Event: Sendable>: Sendable {
    let continuation: AsyncStream<Event>.Continuation
    let handler: (@Sendable (Event) -> Void)?

    init(continuation: AsyncStream<Event>.Continuation, handler: (@Sendable (Event) -> Void)?) {
        self.continuation = continuation
        self.handler = handler
    }

    func deliver(_ event: Event) {
        continuation.yield(event)
        handler?(event)
    }
}
