import Foundation
import Testing

/// `voicechat relay --cluster`: real relay processes registering in a real, private etcd.
@Suite struct RelayClusterTests {
    private func relay(
        _ node: String, port: Int, etcd: String, in directory: URL, secret: URL, extra: [String] = []
    ) throws -> BackgroundCommand {
        try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "relay", "--host", "127.0.0.1", "--port", "\(port)", "--secret-file", secret.path,
                "--report-every", "0", "--admin-socket", directory.appendingPathComponent("\(node).sock").path,
                "--duration", "60", "--cluster", etcd, "--node", node, "--advertise", "127.0.0.1:\(port)",
            ] + extra, directory: directory, label: node)
    }

    /// The relay's Prometheus text, through curl.
    private func metrics(port: Int) throws -> String {
        try CommandRunner.run(
            ["-s", "-m", "2", "http://127.0.0.1:\(port)/metrics"], executable: URL(fileURLWithPath: "/usr/bin/curl")
        ).standardOutput
    }

    private func cluster(_ node: String, in directory: URL) throws -> CommandResult {
        try CommandRunner.run([
            "relay-admin", "--socket", directory.appendingPathComponent("\(node).sock").path, "cluster",
        ])
    }

    /// Both relays show up in each other's `relay-admin cluster`; one killed (SIGKILL) is gone for
    /// the other once its 2 s lease lapses; one stopped (SIGTERM) leaves at once.
    @Test func nodesRegisterUnderALeaseAndLeaveWithIt() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let etcd = try EtcdMember(clientPort: TestPort.clusterEtcdClient.port, peerPort: TestPort.clusterEtcdPeer.port)
        defer { etcd.stop() }
        let secret = try CommandRunner.secretFile(in: directory)
        let metricsPort = TestPort.clusterMetrics.port
        let a = try relay(
            "a", port: TestPort.clusterRelayA.port, etcd: etcd.clientURL, in: directory, secret: secret,
            extra: ["--prometheus-port", "\(metricsPort)"])
        defer { a.stop() }
        let b = try relay("b", port: TestPort.clusterRelayB.port, etcd: etcd.clientURL, in: directory, secret: secret)
        defer { b.stop() }
        #expect(a.waitForOutput("node a of the cluster", seconds: 15), "\(a.standardError)")
        #expect(b.waitForOutput("node b of the cluster", seconds: 15), "\(b.standardError)")
        let bothListed = try secondsUntil(within: 10) {
            try etcd.keys(prefix: "/voicechat/nodes/") == ["/voicechat/nodes/a", "/voicechat/nodes/b"]
        }
        #expect(bothListed != nil, "\((try? etcd.keys(prefix: "/voicechat/")) ?? [])")
        let view = try cluster("a", in: directory)
        #expect(view.status == 0, "\(view.standardError)")
        #expect(view.standardOutput.contains("a  127.0.0.1:\(TestPort.clusterRelayA.port)"), "\(view.standardOutput)")
        #expect(view.standardOutput.contains("b  127.0.0.1:\(TestPort.clusterRelayB.port)"), "\(view.standardOutput)")

        // The cluster's view in a's metrics: two nodes, etcd answering, the lease renewed.
        let counted = try secondsUntil(within: 5) {
            try metrics(port: metricsPort).contains("voicechat_relay_cluster_nodes 2")
        }
        let exposition = try metrics(port: metricsPort)
        #expect(counted != nil, "\(exposition)")
        #expect(exposition.contains("voicechat_relay_cluster_etcd_reachable 1"), "\(exposition)")
        #expect(exposition.contains("voicechat_relay_cluster_lease_renewals_total"), "\(exposition)")

        kill(b.process.processIdentifier, SIGKILL)
        b.process.waitUntilExit()
        let lapsed = try secondsUntil(within: 6) {
            try !cluster("a", in: directory).standardOutput.contains("b  127.0.0.1")
        }
        // The lease is 2 s, renewed every 0.5 s: the node is gone 1.5 to 2 s after its last renewal.
        #expect(lapsed.map { $0 <= 3 } == true, "b still listed \(lapsed.map { "\($0) s" } ?? "after 6 s")")

        kill(a.process.processIdentifier, SIGTERM)
        #expect(a.waitForExit(seconds: 5) == 0, "\(a.standardError)")
        #expect(try etcd.keys(prefix: "/voicechat/nodes/").isEmpty, "a stopped but is still registered")
        #expect(a.standardError.contains("left the cluster"), "\(a.standardError)")
    }

    /// A relay whose etcd is not up yet starts, says so, and joins once etcd answers.
    @Test func aRelayJoinsOnceEtcdAnswers() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = try CommandRunner.secretFile(in: directory)
        let url = "http://127.0.0.1:\(TestPort.lateEtcdClient.port)"
        let relay = try relay("late", port: TestPort.lateClusterRelay.port, etcd: url, in: directory, secret: secret)
        defer { relay.stop() }
        #expect(relay.waitForOutput("relay listening", seconds: 15), "\(relay.standardError)")
        let complained = secondsUntil(within: 10) { relay.standardError.contains("cannot reach the cluster") }
        #expect(complained != nil, "\(relay.standardError)")
        let etcd = try EtcdMember(clientPort: TestPort.lateEtcdClient.port, peerPort: TestPort.lateEtcdPeer.port)
        defer { etcd.stop() }
        let joined = try secondsUntil(within: 10) {
            try etcd.keys(prefix: "/voicechat/nodes/") == ["/voicechat/nodes/late"]
        }
        #expect(joined != nil, "\(relay.standardError)")
        #expect(relay.standardError.contains("etcd is reachable again"), "\(relay.standardError)")
    }

    @Test(arguments: [
        (
            ["--cluster", "ftp://127.0.0.1:2379", "--node", "a", "--advertise", "127.0.0.1:7000"],
            "not an http:// or https:// URL"
        ),
        (["--cluster", "http://127.0.0.1", "--node", "a", "--advertise", "127.0.0.1:7000"], "the port is missing"),
        (["--cluster", "http://127.0.0.1:2379", "--advertise", "127.0.0.1:7000"], "--cluster needs --node"),
        (
            ["--cluster", "http://127.0.0.1:2379", "--node", "a b", "--advertise", "127.0.0.1:7000"],
            "is not a node name"
        ),
        (["--cluster", "http://127.0.0.1:2379", "--node", "a"], "--cluster needs --advertise"),
        (
            ["--cluster", "http://127.0.0.1:2379", "--node", "a", "--advertise", "127.0.0.1:0"],
            "not a number from 1 to 65535"
        ),
        (["--node", "a"], "--node and --advertise need --cluster"),
        (
            ["--cluster", "http://127.0.0.1:2379", "--node", String(repeating: "n", count: 65), "--advertise", "h:1"],
            "is not a node name"
        ),
        (["--cluster", "http://127.0.0.1:99999999999999999999", "--node", "a", "--advertise", "h:1"], "the port"),
        (["--cluster", "http://127.0.0.1:2379/v3", "--node", "a", "--advertise", "h:1"], "has a path"),
        (["--cluster", "", "--node", "a", "--advertise", "h:1"], "is not an http:// or https:// URL"),
        (["--cluster", "http://127.0.0.1:2379", "--node", "a", "--advertise", "h:nan"], "--advertise"),
    ])
    func unusableClusterOptionsAreRefusedAtStart(arguments: [String], message: String) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = try CommandRunner.secretFile(in: directory)
        let result = try CommandRunner.run(
            ["relay", "--port", "7000", "--secret-file", secret.path, "--duration", "1"] + arguments)
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    /// SIGTERM ends a relay within a second even while none of its etcd URLs answers.
    @Test func aRelayWhoseEtcdIsDownStopsWithinASecond() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = try CommandRunner.secretFile(in: directory)
        // Port 1 (tcpmux) is served nowhere here: four URLs that each take a full attempt.
        let relay = try relay(
            "cut-off", port: TestPort.unreachableClusterRelay.port,
            etcd: Array(repeating: "http://127.0.0.1:1", count: 4).joined(separator: ","), in: directory,
            secret: secret)
        defer { relay.stop() }
        #expect(relay.waitForOutput("relay listening", seconds: 15), "\(relay.standardError)")
        let complained = secondsUntil(within: 10) { relay.standardError.contains("cannot reach the cluster") }
        #expect(complained != nil, "\(relay.standardError)")
        let start = Date()
        kill(relay.process.processIdentifier, SIGTERM)
        #expect(relay.waitForExit(seconds: 5) == 0, "\(relay.standardError)")
        let took = Date().timeIntervalSince(start)
        #expect(took < 1, "the relay took \(took) s to stop")
    }

    /// `relay-admin cluster` on a relay in no cluster says how to put it in one.
    @Test func aRelayInNoClusterSaysSo() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = try CommandRunner.secretFile(in: directory)
        let socket = directory.appendingPathComponent("solo.sock").path
        let relay = try BackgroundCommand(
            executable: CommandRunner.executable.path,
            arguments: [
                "relay", "--host", "127.0.0.1", "--port", "\(TestPort.soloRelay.port)", "--secret-file",
                secret.path, "--admin-socket", socket, "--duration", "20",
            ], directory: directory, label: "solo")
        defer { relay.stop() }
        #expect(relay.waitForOutput("admin socket", seconds: 15), "\(relay.standardError)")
        let result = try CommandRunner.run(["relay-admin", "--socket", socket, "cluster"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("in no cluster; start it with --cluster"), "\(result.standardError)")
    }
}
