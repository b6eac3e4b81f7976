import ServiceLifecycle
import VoiceControl
import VoiceRelay

/// `voicechat relay --admin-socket PATH`: the relay's admin API on a Unix-domain socket (mode
/// 0600, so only the relay's user), one JSON request a line, for `voicechat relay-admin`.
struct RelayAdminSocket: Service {
    let path: String
    let server: ControlServer

    static func start(
        path: String, admin: RelayAdmin, cluster: RelayClusterAdmin? = nil
    ) async throws(ControlError) -> RelayAdminSocket {
        let dispatcher = RelayAdminDispatcher(admin: admin, cluster: cluster)
        let server = try await ControlServer.start(path: path) { line in await dispatcher.answer(line) }
        return RelayAdminSocket(path: path, server: server)
    }

    func run() async throws {
        try? await gracefulShutdown()
        await server.close()
    }
}
