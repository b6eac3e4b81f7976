import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The processes of the cluster benchmark: etcd members and `voicechat relay` processes, each in a
/// temporary directory, on loopback ports from `basePort`, stopped by their PIDs at the end.
final class ClusterProcesses {
    let directory: URL
    let secretFile: URL
    let basePort: Int
    private(set) var etcd: [ChildProcess] = []
    private(set) var relays: [String: (port: Int, process: ChildProcess)] = [:]

    init(basePort: Int, secretText: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("voicechat-cluster-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        secretFile = directory.appendingPathComponent("relay.secret")
        try secretText.write(to: secretFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secretFile.path)
        self.basePort = basePort
    }

    var etcdURLs: [String] { (0..<etcd.count).map { "http://127.0.0.1:\(basePort + 2 * $0)" } }

    /// Starts a cluster of `members` etcd members and waits until each answers.
    func startEtcd(members: Int) throws {
        let names = (0..<members).map { "member\($0)" }
        let initial = names.enumerated().map { "\($1)=http://127.0.0.1:\(basePort + 2 * $0 + 1)" }.joined(
            separator: ",")
        for (index, name) in names.enumerated() {
            let client = "http://127.0.0.1:\(basePort + 2 * index)"
            let peer = "http://127.0.0.1:\(basePort + 2 * index + 1)"
            etcd.append(
                try ChildProcess(
                    label: name, executable: "/usr/bin/etcd",
                    arguments: [
                        "--name", name, "--data-dir", directory.appendingPathComponent(name).path,
                        "--listen-client-urls", client, "--advertise-client-urls", client, "--listen-peer-urls", peer,
                        "--initial-advertise-peer-urls", peer, "--initial-cluster", initial, "--log-level", "error",
                    ]))
        }
        for url in etcdURLs {
            let deadline = Date().addingTimeInterval(20)
            while (try? runToCompletion(
                "/usr/bin/curl", ["-s", "-m", "1", "-X", "POST", url + "/v3/kv/range", "-d", "{\"key\":\"Lw==\"}"],
                environment: ["LD_PRELOAD": nil])) == nil
            {
                guard Date() < deadline else { throw ValidationError("etcd at \(url) did not answer within 20 s") }
                usleep(100_000)
            }
        }
    }

    /// Starts `voicechat relay` as `node` on `port`, in the cluster if etcd runs, at its defaults
    /// but for `options`.
    func startRelay(_ node: String, port: Int, clustered: Bool = true, options: [String] = []) throws {
        var arguments =
            [
                "relay", "--host", "127.0.0.1", "--port", "\(port)", "--secret-file", secretFile.path,
                "--report-every", "0", "--log-level", "notice", "--admin-socket", socket(node),
            ] + options
        if clustered {
            arguments += [
                "--cluster", etcdURLs.joined(separator: ","), "--node", node, "--advertise", "127.0.0.1:\(port)",
            ]
        }
        let process = try ChildProcess(
            label: node, executable: ProcessInfo.processInfo.environment["VOICECHAT_BIN"], arguments: arguments)
        guard process.waitForLine(containing: "relay listening", timeout: 20) != nil else {
            throw ValidationError("relay \(node) did not start: \(process.keptLines)")
        }
        relays[node] = (port, process)
    }

    /// Waits until `node`'s `relay-admin cluster` lists `count` nodes.
    func waitForNodes(_ count: Int, seenBy node: String) throws {
        let deadline = Date().addingTimeInterval(15)
        while adminLines(node, "cluster").filter({ $0.contains("127.0.0.1:") }).count != count {
            guard Date() < deadline else { throw ValidationError("the cluster did not reach \(count) nodes") }
            usleep(100_000)
        }
    }

    func socket(_ node: String) -> String { directory.appendingPathComponent("\(node).sock").path }

    /// The lines `voicechat relay-admin` prints for `command` on `node`.
    func adminLines(_ node: String, _ command: String) -> [String] {
        let bin = ProcessInfo.processInfo.environment["VOICECHAT_BIN"] ?? "voicechat"
        let output =
            (try? runToCompletion(
                bin, ["relay-admin", "--socket", socket(node), command], environment: ["LD_PRELOAD": nil])) ?? ""
        return output.split(separator: "\n").map(String.init)
    }

    /// The matches `node` holds, by name.
    func matches(on node: String) -> [String] {
        adminLines(node, "matches").compactMap { line in line.split(separator: ":").first.map(String.init) }
            .filter { $0 != "no matches" }
    }

    /// Players `node` holds (its `stats` line starts "N matches, M players").
    func players(on node: String) -> Int {
        guard let line = adminLines(node, "stats").first, let range = line.range(of: " players") else { return 0 }
        return Int(line[..<range.lowerBound].split(separator: " ").last ?? "") ?? 0
    }

    /// What the relays but `except` dropped so far, by reason, summed (their `stats` lines).
    func drops(except: String? = nil) -> [String: Int] {
        var drops: [String: Int] = [:]
        for node in relays.keys where node != except {
            for line in adminLines(node, "stats") where line.hasPrefix("dropped ") {
                let parts = line.dropFirst("dropped ".count).split(separator: ":")
                guard parts.count == 2, let count = Int(parts[1].trimmingCharacters(in: .whitespaces)) else { continue }
                drops[String(parts[0]), default: 0] += count
            }
        }
        return drops
    }

    func removeRelay(_ node: String) -> ChildProcess? { relays.removeValue(forKey: node)?.process }

    func stopAll() {
        for relay in relays.values { relay.process.terminate() }
        relays = [:]
        for member in etcd {
            kill(member.processIdentifier, SIGCONT)
            member.terminate()
        }
        etcd = []
        try? FileManager.default.removeItem(at: directory)
    }
}
