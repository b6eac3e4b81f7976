import Foundation
import Testing

/// A private one-member etcd on loopback ports, with its data in a temporary directory, for the
/// cluster's tests: started by the test, stopped (by its PID) and removed when it ends.
final class EtcdMember {
    let clientURL: String
    private let command: BackgroundCommand
    private let directory: URL

    /// Starts `etcd` on `clientPort` (and `peerPort` for Raft) and waits until it answers.
    init(name: String = "test", clientPort: Int, peerPort: Int) throws {
        directory = try CommandRunner.temporaryDirectory()
        clientURL = "http://127.0.0.1:\(clientPort)"
        let peerURL = "http://127.0.0.1:\(peerPort)"
        command = try BackgroundCommand(
            executable: Self.executable,
            arguments: [
                "--name", name, "--data-dir", directory.appendingPathComponent("data").path,
                "--listen-client-urls", clientURL, "--advertise-client-urls", clientURL,
                "--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
                "--initial-cluster", "\(name)=\(peerURL)", "--log-level", "warn",
            ], directory: directory, label: "etcd")
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
        command.stop()
        try? FileManager.default.removeItem(at: directory)
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
