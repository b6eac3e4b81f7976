/// Where one service's or match's events go: an `AsyncStream` for code that awaits them, and an
/// optional handler for code that wants them at once. The engine delivers events after it has
/// released its lock, in the order they happened, so a handler may call back into the engine.
final class EventSink<Event: Sendable>: Sendable {
    let continuation: AsyncStream<Event>.Continuation
    let handler: (@Sendable (Event) -> Void)?

    /// How many unread events a sink's stream keeps before it drops the oldest. An app that takes
    /// its events through the handler alone never reads the stream, and an unbounded one would
    /// hold every event of a long call or match until the end; a reader that keeps up never comes
    /// near this many (a busy match has a few events per player per second).
    static var streamCapacity: Int { 4096 }

    /// A sink and the stream it feeds, which keeps the newest `streamCapacity` unread events.
    static func makeStream(handler: (@Sendable (Event) -> Void)?) -> (events: AsyncStream<Event>, sink: EventSink) {
        let (events, continuation) = AsyncStream.makeStream(
            of: Event.self, bufferingPolicy: .bufferingNewest(streamCapacity))
        return (events, EventSink(continuation: continuation, handler: handler))
    }

    init(continuation: AsyncStream<Event>.Continuation, handler: (@Sendable (Event) -> Void)?) {
        self.continuation = continuation
        self.handler = handler
    }

    func deliver(_ event: Event) {
        continuation.yield(event)
        handler?(event)
    }
}
