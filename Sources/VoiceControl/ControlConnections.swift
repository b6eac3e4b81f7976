import NIOCore
import Synchronization

/// The control server's open client connections, so that closing the server closes them too.
final class ControlConnections: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) { channels.withLock { $0[ObjectIdentifier(channel)] = channel } }

    func remove(_ channel: any Channel) { _ = channels.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) } }

    var count: Int { channels.withLock { $0.count } }

    func closeAll() async {
        let open = channels.withLock { Array($0.values) }
        for channel in open { try? await channel.close() }
    }
}
