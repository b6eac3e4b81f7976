import Synchronization

/// What an engine or a relay client reported (on their threads) that a session's run loop has not
/// looked at yet: appended from callbacks, taken in order by the loop.
final class EventInbox<Item: Sendable>: Sendable {
    private let items = Mutex<[Item]>([])

    func append(_ item: Item) { items.withLock { $0.append(item) } }

    func take() -> [Item] {
        items.withLock { items in
            defer { items.removeAll() }
            return items
        }
    }
}
