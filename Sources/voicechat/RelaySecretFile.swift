import Foundation
import VoiceRelay
import VoiceRelayClient
import VoiceWire

/// The relay's shared secret as the game server and the relay both read it: a file whose bytes
/// (without a trailing newline) are the HMAC key. Keeping it in a file, not an option, keeps it out
/// of `ps` output and shell history.
enum RelaySecretFile {
    static let howToCreate = "create one with: head -c 32 /dev/urandom | base64 > FILE && chmod 600 FILE"

    static func load(_ path: String) throws(CommandFailure) -> RelaySecret {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw CommandFailure("secret file \(path) \(reason); \(howToCreate)")
        }
        var bytes = Array(data)
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") {
            bytes.removeLast()
        }
        do {
            return try RelaySecret(bytes: bytes)
        } catch {
            throw CommandFailure("secret file \(path): \(error); \(howToCreate)")
        }
    }
}
