import CVoiceChatABI
import Foundation
import VoiceCore

/// A C call's outcome: `VC_OK`, or an error code with the message `vc_last_error_message` gives.
struct CallFailure: Error {
    let code: vc_result
    let message: String

    init(_ code: vc_result, _ message: String) {
        self.code = code
        self.message = message
    }

    static func invalidArgument(_ message: String) -> CallFailure { CallFailure(VC_ERROR_INVALID_ARGUMENT, message) }
}

/// Runs one C call's body: its failure becomes the code returned and the thread's last error;
/// success clears the last error.
func answer(_ body: () throws(CallFailure) -> Void) -> vc_result {
    do {
        try body()
        LastError.clear()
        return VC_OK
    } catch {
        LastError.set(error.message)
        return error.code
    }
}

/// The text a C caller gave for `argument`: present, valid UTF-8, at most `maximumBytes`.
func text(_ pointer: UnsafePointer<CChar>?, _ argument: String, maximumBytes: Int = 4_096, allowEmpty: Bool = false)
    throws(CallFailure) -> String
{
    guard let pointer else { throw .invalidArgument("\(argument) is NULL; pass a NUL-terminated UTF-8 string") }
    let length = strnlen(pointer, maximumBytes + 1)
    guard length <= maximumBytes else {
        throw .invalidArgument("\(argument) is longer than \(maximumBytes) bytes (or not NUL-terminated)")
    }
    guard let value = String(validatingCString: pointer) else {
        throw .invalidArgument("\(argument) is not valid UTF-8")
    }
    guard allowEmpty || !value.isEmpty else { throw .invalidArgument("\(argument) is empty") }
    return value
}

/// Writes `value` and its NUL into the caller's buffer, saying in `needed` what it takes.
func write(
    _ value: String, into buffer: UnsafeMutablePointer<CChar>?, capacity: Int, needed: UnsafeMutablePointer<Int>?
)
    throws(CallFailure)
{
    let bytes = Array(value.utf8) + [0]
    needed?.pointee = bytes.count
    guard let buffer else { throw .invalidArgument("buffer is NULL; pass room for \(bytes.count) bytes") }
    guard capacity >= bytes.count else {
        throw CallFailure(
            VC_ERROR_BUFFER_TOO_SMALL, "buffer holds \(capacity) bytes; the text takes \(bytes.count) (see needed)")
    }
    bytes.withUnsafeBufferPointer { source in
        UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress!, byteCount: bytes.count)
    }
}

/// A participant's ID a C caller gave for `argument`, as `text` checks it (at most 256 bytes).
func participantID(_ pointer: UnsafePointer<CChar>?, _ argument: String) throws(CallFailure) -> ParticipantID {
    ParticipantID(try text(pointer, argument, maximumBytes: 256))
}
