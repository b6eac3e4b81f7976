import CVoiceChatABI
import VoiceWire

@_cdecl("vc_token_sign")
public func cTokenSign(
    _ secret: UnsafePointer<UInt8>?, _ secretLength: Int, _ audience: UnsafePointer<CChar>?,
    _ match: UnsafePointer<CChar>?, _ participant: UnsafePointer<CChar>?, _ expiry: UInt64,
    _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int, _ needed: UnsafeMutablePointer<Int>?
) -> vc_result {
    answer { () throws(CallFailure) in
        let key = try relaySecret(secret, secretLength)
        let maximum = RelayToken.maximumIDBytes
        let audienceText =
            audience == nil ? "" : try text(audience, "audience", maximumBytes: maximum, allowEmpty: true)
        let matchText = try text(match, "match", maximumBytes: maximum)
        let participantText = try text(participant, "participant", maximumBytes: maximum)
        let token: RelayToken
        do {
            token = try RelayToken.sign(
                audience: audienceText, match: matchText, participant: participantText, expiry: expiry, secret: key)
        } catch {
            throw .invalidArgument("cannot sign a token: \(error)")
        }
        try write(token.text, into: buffer, capacity: capacity, needed: needed)
    }
}

/// The relay's secret from a C caller's bytes: at least 16 of them.
func relaySecret(_ bytes: UnsafePointer<UInt8>?, _ length: Int) throws(CallFailure) -> RelaySecret {
    guard let bytes else { throw .invalidArgument("secret is NULL; pass the relay's shared secret") }
    guard length >= 16, length <= 1_024 else {
        throw .invalidArgument("secret_length is \(length); a secret is 16…1024 bytes")
    }
    do {
        return try RelaySecret(bytes: UnsafeBufferPointer(start: bytes, count: length))
    } catch {
        throw .invalidArgument("secret: \(error)")
    }
}
