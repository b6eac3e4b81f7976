import Foundation
import Testing

/// A private etcd member on loopback ports, with its data in a temporary directory, for the
/// cluster's tests: started by the test, stopped (by its PID) and removed when it ends. Alone (a
/// one-member cluster) or one of several (`EtcdMember.cluster`).
final class EtcdMember {
    let clientURL: String
    private let command: BackgroundCommand
    private let directory: URL

    /// Starts `etcd` on `clientPort` (and `peerPort` for Raft) as a cluster of its own and waits
    /// until it answers.
    convenience init(name: String = "test", clientPort: Int, peerPort: Int) throws {
        try self.init(
            name: name, clientPort: clientPort, peerPort: peerPort,
            initialCluster: "\(name)=http://127.0.0.1:\(peerPort)")
        try waitUntilAnswering()
    }

    /// Starts `etcd` as `name` of `initialCluster` (NAME=PEER_URL,…); returns at once.
    private init(name: String, clientPort: Int, peerPort: Int, initialCluster: String) throws {
        directory = try CommandRunner.temporaryDirectory()
        clientURL = "http://127.0.0.1:\(clientPort)"
        let peerURL = "http://127.0.0.1:\(peerPort)"
        command = try BackgroundCommand(
            executable: Self.executable,
            arguments: [
                "--name", name, "--data-dir", directory.appendingPathComponent("data").path,
                "--listen-client-urls", clientURL, "--advertise-client-urls", clientURL,
                "--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
                "--initial-cluster", initialCluster, "--log-level", "warn",
            ], directory: directory, label: "etcd")
    }

    /// Starts a cluster of one member per (client, peer) port pair and waits until each answers.
    static func cluster(ports: [(client: Int, peer: Int)]) throws -> [EtcdMember] {
        let names = ports.indices.map { "member\($0)" }
        let initial = zip(names, ports).map { "\($0)=http://127.0.0.1:\($1.peer)" }.joined(separator: ",")
        let members = try zip(names, ports).map {
            try EtcdMember(name: $0, clientPort: $1.client, peerPort: $1.peer, initialCluster: initial)
        }
        do {
            for member in members { try member.waitUntilAnswering() }
        } catch {
            for member in members { member.stop() }
            throw error
        }
        return members
    }

    private func waitUntilAnswering() throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if (try? keys(prefix: "/")) != nil { return }
            usleep(100_000)
        }
        stop()
        Issue.record("etcd did not answer on \(clientURL) within 20 s: \(command.standardError)")
        throw CancellationError()
    }

    deinit { stop() }

    func stop() {
        resume()
        command.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills the member at once (SIGKILL), as a host that dies.
    func kill() { signal(SIGKILL) }

    /// Freezes the member (SIGSTOP): it answers nothing, as an etcd that is down, until `resume`.
    func pause() { signal(SIGSTOP) }

    func resume() { signal(SIGCONT) }

    private func signal(_ number: Int32) {
        guard command.process.isRunning else { return }
        Glibc.kill(command.process.processIdentifier, number)
        if number == SIGKILL { command.process.waitUntilExit() }
    }

    /// The keys under `prefix` now (through etcd's own JSON gateway, with curl).
    func keys(prefix: String) throws -> [String] {
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        var end = Array(prefix.utf8)
        end[end.count - 1] += 1
        let body =
            "{\"key\":\"\(base64(prefix))\",\"range_end\":\"\(Data(end).base64EncodedString())\",\"keys_only\":true}"
        let result = try CommandRunner.run(
            ["-s", "-m", "2", "-X", "POST", clientURL + "/v3/kv/range", "-d", body],
            executable: URL(fileURLWithPath: "/usr/bin/curl"))
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        else { throw CancellationError() }
        let kvs = object["kvs"] as? [[String: Any]] ?? []
        return kvs.compactMap {
            ($0["key"] as? String).flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// `etcd` as `scripts/setup.sh` installs it.
    static let executable = "/usr/bin/etcd"
}
