/// Why a request to etcd failed.
public enum EtcdError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No endpoint answered (every one was tried in turn).
    case unreachable(endpoints: [String], reason: String)
    /// An endpoint answered with an HTTP error or with something that is not etcd's JSON.
    case badResponse(endpoint: String, reason: String)
    /// The lease is gone (expired, or revoked): what it held is gone with it.
    case leaseExpired(Int64)

    public var description: String {
        switch self {
        case .unreachable(let endpoints, let reason):
            "etcd is unreachable at \(endpoints.joined(separator: ", ")) (\(reason)); check that it runs and "
                + "that --cluster names its client URLs"
        case .badResponse(let endpoint, let reason):
            "etcd at \(endpoint) answered with an error: \(reason)"
        case .leaseExpired(let lease):
            "etcd lease \(lease) has expired"
        }
    }
}
