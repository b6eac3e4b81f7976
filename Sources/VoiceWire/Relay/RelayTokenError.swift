/// Why a relay refused a join token.
public enum RelayTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text is not a token of this format; `reason` says which part is wrong.
    case malformed(reason: String)
    /// The MAC does not match: the token was altered, or signed with another secret.
    case badSignature
    /// The token expired at `expiry` (Unix seconds); it was presented at `now`.
    case expired(expiry: UInt64, now: UInt64)
    /// The token is for another match than the one it was presented for.
    case wrongMatch(expected: String, found: String)
    /// The token names another relay (`audience`) than the one it was presented to.
    case wrongAudience(relay: String, found: String)
    /// A shared secret shorter than `RelaySecret.minimumBytes`.
    case secretTooShort(bytes: Int, minimum: Int)

    public var description: String {
        switch self {
        case .malformed(let reason):
            "malformed relay token: \(reason); paste the whole token the game server issued"
        case .badSignature:
            "relay token signature does not match: the token was altered or signed with another secret"
        case .expired(let expiry, let now):
            "relay token expired at \(expiry) (Unix seconds), \(now - min(now, expiry)) s ago; ask the game "
                + "server for a fresh one"
        case .wrongMatch(let expected, let found):
            "relay token is for match \"\(found)\", not \"\(expected)\""
        case .wrongAudience(let relay, let found):
            "relay token is for relay \"\(found)\", not "
                + (relay.isEmpty ? "this relay, which names no audience" : "\"\(relay)\"")
        case .secretTooShort(let bytes, let minimum):
            "relay secret has \(bytes) bytes; use at least \(minimum) random bytes"
        }
    }
}
