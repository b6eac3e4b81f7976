import Crypto

/// Permission to join one match as one participant until an expiry, on the relays of one audience
/// (or any relay that holds the secret), signed by the game server.
///
/// Text form (pasteable on a command line, no characters a shell interprets):
/// `base64url(payload) "." base64url(HMAC-SHA256(secret, payload))`, where payload is
/// `"vcrt2" | u16 length | audience UTF-8 | u16 length | match UTF-8 | u16 length | participant UTF-8
/// | u64 expiry`, big-endian; an empty audience means any relay.
public struct RelayToken: Sendable, Hashable, CustomStringConvertible {
    /// Longest audience, match or participant ID a token carries, in UTF-8 bytes.
    public static let maximumIDBytes = 256
    /// Longest text form `init(parsing:)` accepts.
    public static let maximumTextBytes = 1024
    /// How long past its expiry a token is still taken, for clocks that differ between the game
    /// server that signs and the relay that checks.
    public static let expiryGraceSeconds: UInt64 = 30

    /// The relay (or group of relays) the token is for, as each names itself (`relay --audience`);
    /// empty: any relay that holds the secret.
    public let audience: String
    public let match: String
    public let participant: String
    /// Unix seconds after which (and `expiryGraceSeconds`) the relay refuses the token.
    public let expiry: UInt64
    let mac: [UInt8]

    private static let magic = Array("vcrt2".utf8)

    /// Signs a token (the game server's side).
    public static func sign(
        audience: String = "", match: String, participant: String, expiry: UInt64, secret: RelaySecret
    ) throws(RelayTokenError) -> RelayToken {
        let payload = try payload(audience: audience, match: match, participant: participant, expiry: expiry)
        let mac = Array(HMAC<SHA256>.authenticationCode(for: payload, using: secret.key))
        let token = RelayToken(audience: audience, match: match, participant: participant, expiry: expiry, mac: mac)
        // Each ID may be as long as any, but not all three at once: the text must fit a join.
        guard token.text.utf8.count <= maximumTextBytes else {
            throw .malformed(
                reason: "audience, match and participant IDs together make a token of \(token.text.utf8.count) "
                    + "characters, more than \(maximumTextBytes); shorten one")
        }
        return token
    }

    private init(audience: String, match: String, participant: String, expiry: UInt64, mac: [UInt8]) {
        self.audience = audience
        self.match = match
        self.participant = participant
        self.expiry = expiry
        self.mac = mac
    }

    /// Parses the text form; checks only its shape (see `verify`).
    public init(parsing text: String) throws(RelayTokenError) {
        guard text.utf8.count <= Self.maximumTextBytes else {
            throw .malformed(reason: "longer than \(Self.maximumTextBytes) characters")
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .malformed(reason: "expected two parts separated by one \".\"") }
        guard let payload = Base64URL.decode(parts[0]) else { throw .malformed(reason: "payload is not base64url") }
        guard let mac = Base64URL.decode(parts[1]) else { throw .malformed(reason: "signature is not base64url") }
        guard mac.count == SHA256.byteCount else {
            throw .malformed(reason: "signature has \(mac.count) bytes, expected \(SHA256.byteCount)")
        }
        var reader = ByteReader(payload)
        guard reader.take(Self.magic.count).map(Array.init) == Self.magic else {
            throw .malformed(reason: "unknown token version")
        }
        guard let audience = reader.string(), let match = reader.string(), let participant = reader.string() else {
            throw .malformed(reason: "audience, match or participant ID is truncated or not UTF-8")
        }
        guard let expiry = reader.uint64(), reader.isAtEnd else {
            throw .malformed(reason: "expiry is missing or followed by extra bytes")
        }
        guard !match.isEmpty, !participant.isEmpty else { throw .malformed(reason: "empty match or participant ID") }
        guard audience.utf8.count <= Self.maximumIDBytes else { throw .malformed(reason: "audience too long") }
        self.init(audience: audience, match: match, participant: participant, expiry: expiry, mac: mac)
    }

    /// Checks the signature; the expiry against `now` (Unix seconds), `expiryGraceSeconds` allowed;
    /// that the token is for `audience` (the checking relay's name) unless it is for any relay;
    /// and, if given, the match.
    public func verify(
        secret: RelaySecret, now: UInt64, audience relay: String? = nil, match expectedMatch: String? = nil
    ) throws(RelayTokenError) {
        let payload = try Self.payload(audience: audience, match: match, participant: participant, expiry: expiry)
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: secret.key) else {
            throw .badSignature
        }
        guard now <= expiry &+ Self.expiryGraceSeconds, expiry <= UInt64.max - Self.expiryGraceSeconds else {
            throw .expired(expiry: expiry, now: now)
        }
        if !audience.isEmpty, audience != (relay ?? "") { throw .wrongAudience(relay: relay ?? "", found: audience) }
        if let expectedMatch, expectedMatch != match { throw .wrongMatch(expected: expectedMatch, found: match) }
    }

    /// The text form.
    public var text: String {
        let payload =
            (try? Self.payload(audience: audience, match: match, participant: participant, expiry: expiry)) ?? []
        return Base64URL.encode(payload) + "." + Base64URL.encode(mac)
    }

    public var description: String { text }

    private static func payload(audience: String, match: String, participant: String, expiry: UInt64)
        throws(RelayTokenError) -> [UInt8]
    {
        let audienceBytes = Array(audience.utf8)
        let matchBytes = Array(match.utf8)
        let participantBytes = Array(participant.utf8)
        guard !matchBytes.isEmpty, !participantBytes.isEmpty else {
            throw .malformed(reason: "empty match or participant ID")
        }
        guard audienceBytes.count <= maximumIDBytes, matchBytes.count <= maximumIDBytes,
            participantBytes.count <= maximumIDBytes
        else {
            throw .malformed(reason: "audience, match or participant ID longer than \(maximumIDBytes) bytes")
        }
        var payload = magic
        for field in [audienceBytes, matchBytes, participantBytes] {
            payload.append(UInt8(field.count >> 8))
            payload.append(UInt8(field.count & 0xFF))
            payload.append(contentsOf: field)
        }
        for shift in stride(from: 56, through: 0, by: -8) { payload.append(UInt8(truncatingIfNeeded: expiry >> shift)) }
        return payload
    }
}
