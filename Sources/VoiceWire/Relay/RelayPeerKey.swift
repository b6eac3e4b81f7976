import Crypto

/// What authenticates the messages between the relays of a cluster: a key derived from the
/// secret the relays share (the one tokens are signed with), so that nothing else needs handing
/// out, and nothing but a relay of the cluster can speak for one.
public struct RelayPeerKey: Sendable {
    /// Bytes of HMAC-SHA256 each message carries: as much as a sealed envelope's tag.
    public static let tagBytes = 16

    /// Kept as bytes (SymmetricKey is not Sendable).
    private let bytes: [UInt8]

    public init(secret: RelaySecret) {
        let derived = HMAC<SHA256>.authenticationCode(for: Array("voicechat relay peers v1".utf8), using: secret.key)
        bytes = Array(derived)
    }

    /// The tag of `message` (the bytes before the tag).
    package func tag(of message: ArraySlice<UInt8>) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: bytes)).prefix(Self.tagBytes))
    }

    /// Whether `tag` is this key's for `message`, compared in constant time.
    func isValid(tag: ArraySlice<UInt8>, of message: ArraySlice<UInt8>) -> Bool {
        let expected = self.tag(of: message)
        guard tag.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(tag, expected) { difference |= a ^ b }
        return difference == 0
    }
}
