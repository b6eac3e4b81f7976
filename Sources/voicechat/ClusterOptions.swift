import ArgumentParser
import Foundation
import VoiceCluster

/// `voicechat relay --cluster URL[,URL…] --node NAME --advertise HOST:PORT`: the relay joins a
/// cluster whose state lives in etcd. All three or none.
struct ClusterOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "etcd's client URLs, comma-separated (e.g. http://10.0.0.1:2379,http://10.0.0.2:2379): the relay "
                + "joins the cluster they hold.", valueName: "urls"))
    var cluster: String?

    @Option(help: ArgumentHelp("This relay's name in the cluster, unique among its nodes.", valueName: "name"))
    var node: String?

    @Option(
        help: ArgumentHelp("HOST:PORT players and other relays reach this relay at.", valueName: "host:port"))
    var advertise: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "On SIGTERM (or `relay-admin drain`) a cluster relay moves its matches to other relays and stops "
                + "once they have moved, or after this many seconds, \(NumericArgument.drainDeadline) (default: 30); "
                + "Ctrl-C, or a second SIGTERM, stops it at once.", valueName: "seconds"),
        transform: NumericArgument.drainDeadline.double)
    var drainDeadline: Double = 30

    /// The cluster these options name, or nil without `--cluster`; refuses what cannot work.
    func configuration() throws -> ClusterConfiguration? {
        guard let cluster else {
            if node != nil || advertise != nil {
                throw ValidationError("--node and --advertise need --cluster (etcd's client URLs)")
            }
            return nil
        }
        let endpoints = try cluster.split(separator: ",", omittingEmptySubsequences: false).map {
            try Self.endpoint(String($0))
        }
        guard let node else { throw ValidationError("--cluster needs --node: this relay's name in the cluster") }
        guard (1...64).contains(node.utf8.count),
            node.unicodeScalars.allSatisfy({ CharacterSet.nameCharacters.contains($0) })
        else {
            throw ValidationError(
                "--node \"\(node)\" is not a node name: 1…64 letters, digits, '.', '_' or '-'")
        }
        guard let advertise else {
            throw ValidationError("--cluster needs --advertise HOST:PORT: where players reach this relay")
        }
        do {
            _ = try CallAddress(parsing: advertise)
        } catch {
            throw ValidationError("--advertise: \(error)")
        }
        return ClusterConfiguration(endpoints: endpoints, node: node, advertise: advertise)
    }

    /// An etcd client URL (http:// or https://, a host and a port, perhaps a trailing slash),
    /// without its trailing slash.
    private static func endpoint(_ endpoint: String) throws -> String {
        let example = "give etcd's client URLs, e.g. http://127.0.0.1:2379"
        let scheme = ["http://", "https://"].first { endpoint.hasPrefix($0) }
        guard let scheme else {
            throw ValidationError("--cluster: \"\(endpoint)\" is not an http:// or https:// URL; \(example)")
        }
        var address = endpoint.dropFirst(scheme.count)
        if address.hasSuffix("/") { address = address.dropLast() }
        guard !address.contains("/") else {
            throw ValidationError("--cluster: \"\(endpoint)\" has a path; \(example)")
        }
        do {
            _ = try CallAddress(parsing: String(address))
        } catch {
            throw ValidationError("--cluster: \"\(endpoint)\": \(error)")
        }
        return scheme + address
    }
}

extension NumericArgument {
    /// How long a draining relay waits for its matches to move, seconds.
    static let drainDeadline = NumericArgument(0...3_600, unit: "seconds")
}

extension CharacterSet {
    /// What a node's name may hold.
    fileprivate static let nameCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
}
