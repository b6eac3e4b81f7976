import Foundation
import VoiceRelay
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
        warnIfOthersCanRead(path)
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

    /// Anyone who can read the secret can sign tokens for any match: say so, as ssh does of keys.
    private static func warnIfOthersCanRead(_ path: String) {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int,
            mode & 0o077 != 0
        else { return }
        FileHandle.standardError.write(
            Data(
                ("warning: secret file \(path) can be read by other users (mode \(String(mode & 0o777, radix: 8))): "
                    + "anyone who reads it can sign tokens; chmod 600 \(path)\n").utf8))
    }
}
