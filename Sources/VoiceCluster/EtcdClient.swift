import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import Synchronization

/// A client of etcd's v3 API through its JSON gateway (`POST /v3/...`), over AsyncHTTPClient:
/// leases, puts, reads and transactions. It tries the endpoints
/// in turn, so one etcd member down is one failed attempt, not a failed request.
public final class EtcdClient: Sendable {
    public let endpoints: [String]
    private let http: HTTPClient
    private let timeout: TimeAmount
    /// The endpoint that answered last, tried first: a member that is down costs a request its
    /// whole timeout (the connection is retried until then), so it is not tried again first.
    private let lastAnswered = Atomic<Int>(0)

    /// - Parameter endpoints: client URLs such as `http://127.0.0.1:2379`.
    public init(endpoints: [String], http: HTTPClient = .shared, timeout: TimeAmount = .seconds(1)) {
        self.endpoints = endpoints
        self.http = http
        self.timeout = timeout
    }

    /// A key and its value, as stored.
    public struct KeyValue: Sendable, Hashable {
        public var key: String
        public var value: [UInt8]
        public var lease: Int64
        /// The store's revision of the key's last change.
        public var modRevision: Int64
    }

    /// A condition of a transaction.
    public enum Condition: Sendable, Hashable {
        /// The key does not exist.
        case absent(String)
        /// The key holds exactly this value.
        case value(String, equals: [UInt8])
        /// The key last changed at this revision.
        case modRevision(String, equals: Int64)
    }

    /// A step of a transaction.
    public enum Operation: Sendable, Hashable {
        case put(String, [UInt8], lease: Int64?)
        case delete(String)
        case get(String)
        /// Every key under a prefix.
        case range(prefix: String)
    }

    // MARK: Leases

    /// A new lease of `seconds`; what is put under it goes when it lapses.
    public func grantLease(seconds: Int) async throws(EtcdError) -> Int64 {
        let reply: LeaseGrantReply = try await call("/v3/lease/grant", LeaseGrantRequest(TTL: String(seconds)))
        guard let id = reply.ID.flatMap(Int64.init) else { throw .badResponse(endpoint: "?", reason: "no lease ID") }
        return id
    }

    /// Renews the lease for another TTL; throws `.leaseExpired` once it has lapsed.
    public func keepAlive(lease: Int64) async throws(EtcdError) {
        let reply: KeepAliveReply = try await call("/v3/lease/keepalive", LeaseIDRequest(ID: String(lease)))
        // The gateway streams this call: an error (no leader during an election) comes as a body
        // with no result, and says nothing of the lease; a result with no TTL is a lapsed lease.
        guard let result = reply.result else {
            throw .badResponse(endpoint: "lease keepalive", reason: reply.error?.message ?? "no result")
        }
        guard let ttl = result.TTL.flatMap(Int64.init), ttl > 0 else { throw .leaseExpired(lease) }
    }

    /// Ends the lease now, and with it everything put under it.
    public func revoke(lease: Int64) async throws(EtcdError) {
        let _: Header = try await call("/v3/lease/revoke", LeaseIDRequest(ID: String(lease)))
    }

    // MARK: Keys

    public func put(_ key: String, _ value: [UInt8], lease: Int64? = nil) async throws(EtcdError) {
        let _: Header = try await call(
            "/v3/kv/put",
            PutRequest(key: Self.encode(key), value: Data(value).base64EncodedString(), lease: lease.map(String.init)))
    }

    /// Every key under `prefix`, in key order.
    public func range(prefix: String) async throws(EtcdError) -> [KeyValue] {
        let reply: RangeReply = try await call(
            "/v3/kv/range", RangeRequest(key: Self.encode(prefix), range_end: Self.encode(Self.end(of: prefix))))
        return Self.decode(reply)
    }

    /// The key, if it exists.
    public func get(_ key: String) async throws(EtcdError) -> KeyValue? {
        let reply: RangeReply = try await call("/v3/kv/range", RangeRequest(key: Self.encode(key)))
        return Self.decode(reply).first
    }

    /// Runs `then` if every condition holds, else `otherwise`, atomically; returns whether the
    /// conditions held and what each `get` and `range` of the branch taken found.
    public func transaction(
        if conditions: [Condition], then: [Operation], else otherwise: [Operation] = []
    ) async throws(EtcdError) -> (succeeded: Bool, found: [KeyValue]) {
        let reply: TxnReply = try await call(
            "/v3/kv/txn",
            TxnRequest(
                compare: conditions.map(Self.compare), success: then.map(Self.request),
                failure: otherwise.map(Self.request)))
        let found = (reply.responses ?? []).compactMap(\.response_range).flatMap(Self.decode)
        return (reply.succeeded ?? false, found)
    }

    private static func compare(_ condition: Condition) -> TxnRequest.Compare {
        switch condition {
        case .absent(let key):
            TxnRequest.Compare(key: encode(key), target: "CREATE", create_revision: "0")
        case .value(let key, let value):
            TxnRequest.Compare(key: encode(key), target: "VALUE", value: Data(value).base64EncodedString())
        case .modRevision(let key, let revision):
            TxnRequest.Compare(key: encode(key), target: "MOD", mod_revision: String(revision))
        }
    }

    private static func request(_ operation: Operation) -> TxnRequest.Request {
        switch operation {
        case .put(let key, let value, let lease):
            TxnRequest.Request(
                request_put: PutRequest(
                    key: encode(key), value: Data(value).base64EncodedString(), lease: lease.map(String.init)))
        case .delete(let key): TxnRequest.Request(request_delete_range: DeleteRequest(key: encode(key)))
        case .get(let key): TxnRequest.Request(request_range: RangeRequest(key: encode(key)))
        case .range(let prefix):
            TxnRequest.Request(request_range: RangeRequest(key: encode(prefix), range_end: encode(end(of: prefix))))
        }
    }

    private static func decode(_ reply: RangeReply) -> [KeyValue] {
        (reply.kvs ?? []).compactMap { kv in
            guard let key = Data(base64Encoded: kv.key).flatMap({ String(data: $0, encoding: .utf8) }) else {
                return nil
            }
            let value = kv.value.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? []
            return KeyValue(
                key: key, value: value, lease: kv.lease.flatMap(Int64.init) ?? 0,
                modRevision: kv.mod_revision.flatMap(Int64.init) ?? 0)
        }
    }

    // MARK: Transport

    /// Sends `request` to each endpoint in turn until one answers.
    private func call<Request: Encodable, Reply: Decodable>(_ path: String, _ request: Request) async throws(EtcdError)
        -> Reply
    {
        let body: Data
        do {
            body = try JSONEncoder().encode(request)
        } catch {
            throw .badResponse(endpoint: path, reason: "the request does not encode: \(error)")
        }
        var failures: [String] = []
        let first = lastAnswered.load(ordering: .relaxed)
        for index in endpoints.indices.map({ (first + $0) % endpoints.count }) {
            let endpoint = endpoints[index]
            var outgoing = HTTPClientRequest(url: endpoint + path)
            outgoing.method = .POST
            outgoing.headers.add(name: "Content-Type", value: "application/json")
            outgoing.body = .bytes(ByteBuffer(data: body))
            let response: HTTPClientResponse
            let bytes: ByteBuffer
            do {
                response = try await http.execute(outgoing, timeout: timeout)
                bytes = try await response.body.collect(upTo: 4 << 20)
            } catch {
                failures.append("\(endpoint): \(error)")
                continue
            }
            lastAnswered.store(index, ordering: .relaxed)
            guard response.status == .ok else {
                let text = String(buffer: bytes)
                if path == "/v3/lease/keepalive" || text.contains("requested lease not found") {
                    if let lease = (request as? LeaseIDRequest).flatMap({ Int64($0.ID) }) { throw .leaseExpired(lease) }
                }
                throw .badResponse(endpoint: endpoint, reason: "HTTP \(response.status.code): \(text)")
            }
            do {
                return try JSONDecoder().decode(Reply.self, from: bytes)
            } catch {
                throw .badResponse(endpoint: endpoint, reason: "\(error)")
            }
        }
        throw .unreachable(endpoints: endpoints, reason: failures.last ?? "no endpoint")
    }

    private static func encode(_ key: String) -> String { Data(key.utf8).base64EncodedString() }

    /// The first key after every key that starts with `prefix` (etcd's `range_end` for a prefix).
    static func end(of prefix: String) -> String {
        var bytes = Array(prefix.utf8)
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return String(decoding: bytes, as: UTF8.self)
            }
            bytes.removeLast()
        }
        return "\u{0}"
    }
}

// The gateway's JSON: 64-bit integers travel as strings, keys and values as base64.
private struct LeaseGrantRequest: Encodable { var TTL: String }
private struct LeaseGrantReply: Decodable { var ID: String? }
private struct LeaseIDRequest: Encodable { var ID: String }
private struct KeepAliveReply: Decodable {
    struct Result: Decodable { var TTL: String? }
    struct Failure: Decodable { var message: String? }
    var result: Result?
    var error: Failure?
}
private struct Header: Decodable {}
private struct PutRequest: Encodable {
    var key: String
    var value: String
    var lease: String?
}
private struct RangeRequest: Encodable {
    var key: String
    var range_end: String?
}
private struct RangeReply: Decodable {
    struct KV: Decodable {
        var key: String
        var value: String?
        var lease: String?
        var mod_revision: String?
    }
    var kvs: [KV]?
}
private struct DeleteRequest: Encodable { var key: String }
private struct TxnRequest: Encodable {
    struct Compare: Encodable {
        var key: String
        var target: String
        var result = "EQUAL"
        var create_revision: String?
        var mod_revision: String?
        var value: String?
    }
    struct Request: Encodable {
        var request_put: PutRequest?
        var request_delete_range: DeleteRequest?
        var request_range: RangeRequest?
    }
    var compare: [Compare]
    var success: [Request]
    var failure: [Request]
}
private struct TxnReply: Decodable {
    struct Response: Decodable { var response_range: RangeReply? }
    var succeeded: Bool?
    var responses: [Response]?
}
