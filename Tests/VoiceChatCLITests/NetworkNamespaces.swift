import Foundation
import Testing
import VoiceSimulation
import VoiceTestHarness

#if canImport(Glibc)
    import Glibc
#endif

/// Two network namespaces joined by a veth pair: two hosts on one machine. Created with unique names
/// per process and removed by `remove()` (deleting a namespace deletes its end of the pair and with it
/// the other end).
struct NetworkNamespaces {
    let first: String
    let second: String
    /// The second namespace's end of the veth pair.
    let secondLink: String
    let firstAddress = "10.213.0.1"
    let secondAddress = "10.213.0.2"

    /// Whether this process may create namespaces (root, with `ip` installed): tried once, cleaned up.
    static let available: Bool = {
        guard geteuid() == 0, let ip = JACKServer.executable("ip") else { return false }
        let name = "vcprobe\(getpid())"
        guard run(ip, ["netns", "add", name]) == 0 else { return false }
        _ = run(ip, ["netns", "delete", name])
        return true
    }()

    static var ip: String { JACKServer.executable("ip") ?? "/usr/sbin/ip" }

    init(label: String) throws {
        let suffix = "\(getpid() % 100_000)\(label)"
        first = "vcA\(suffix)"
        second = "vcB\(suffix)"
        let firstLink = "va\(suffix)"
        let secondLink = "vb\(suffix)"
        self.secondLink = secondLink
        let steps: [[String]] = [
            ["netns", "add", first],
            ["netns", "add", second],
            ["link", "add", firstLink, "type", "veth", "peer", "name", secondLink],
            ["link", "set", firstLink, "netns", first],
            ["link", "set", secondLink, "netns", second],
            ["-n", first, "addr", "add", "\(firstAddress)/24", "dev", firstLink],
            ["-n", second, "addr", "add", "\(secondAddress)/24", "dev", secondLink],
            ["-n", first, "link", "set", firstLink, "up"],
            ["-n", second, "link", "set", secondLink, "up"],
            ["-n", first, "link", "set", "lo", "up"],
            ["-n", second, "link", "set", "lo", "up"],
        ]
        for step in steps {
            guard Self.run(Self.ip, step) == 0 else {
                Self.remove(first: first, second: second, link: firstLink)
                throw JACKServerError("`ip \(step.joined(separator: " "))` failed")
            }
        }
    }

    /// Takes the second host's link down (its sends fail with "network unreachable") or up again.
    func setSecondLink(up: Bool) {
        _ = Self.run(Self.ip, ["-n", second, "link", "set", secondLink, up ? "up" : "down"])
    }

    /// `ip netns exec NAME`: runs a command inside the namespace.
    func prefix(_ namespace: String) -> [String] { [Self.ip, "netns", "exec", namespace] }

    func remove() {
        Self.remove(first: first, second: second, link: nil)
    }

    private static func remove(first: String, second: String, link: String?) {
        _ = run(ip, ["netns", "delete", first])
        _ = run(ip, ["netns", "delete", second])
        // A pair made before it moved into a namespace stays in this one.
        if let link { _ = run(ip, ["link", "delete", link]) }
    }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test only where this process may create network namespaces.
    static var needsNetworkNamespaces: Self {
        .enabled(
            if: NetworkNamespaces.available,
            "needs root and iproute2 to create network namespaces (run as root, apt-get install iproute2)")
    }
}
