import NIOCore
import VoiceCore

/// This machine's addresses, as direct candidates for the peer to probe.
public enum CandidateGathering {
    /// The numeric addresses of the local interfaces with `port`: IPv4 first, then IPv6, loopback
    /// last (and only when asked: it reaches only this machine). Link-local IPv6 addresses are left
    /// out unless asked for, because they work only with an interface the peer cannot name.
    /// Returns an empty list when the interfaces cannot be listed.
    public static func localCandidates(port: Int, includeLoopback: Bool, includeLinkLocal: Bool = false)
        -> [PeerAddress]
    {
        guard let devices = try? System.enumerateDevices() else { return [] }
        var seen = Set<PeerAddress>()
        var candidates: [PeerAddress] = []
        for device in devices {
            guard let host = device.address?.ipAddress, let address = try? PeerAddress(host: host, port: port),
                !seen.contains(address)
            else { continue }
            if address.isLoopback && !includeLoopback { continue }
            if address.isLinkLocal && !includeLinkLocal { continue }
            seen.insert(address)
            candidates.append(address)
        }
        func rank(_ address: PeerAddress) -> Int {
            (address.isLoopback ? 2 : 0) + (address.family == .ipv6 ? 1 : 0)
        }
        return candidates.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .map(\.element)
    }
}
