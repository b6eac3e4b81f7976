/// A failure reported by libopus or libspeexdsp, with the library's own message.
public struct CodecError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// A setting or argument outside what the library accepts (bad rate, frame size, bitrate…).
        case invalidArgument
        /// The output buffer was too small for what the call produces.
        case bufferTooSmall
        /// The input is not a valid compressed packet.
        case invalidPacket
        /// The library could not allocate its state.
        case allocationFailed
        /// The library reported an internal error or a state it should never be in.
        case internalError
    }

    public var code: Code
    /// Which call failed, e.g. `opus_encode_float` or `Resampler.init`.
    public var operation: String
    /// The library's message (`opus_strerror`, `speex_resampler_strerror`) or ours.
    public var message: String
    /// The library's raw status code, when it gave one.
    public var status: Int32?

    public init(_ code: Code, operation: String, message: String, status: Int32? = nil) {
        self.code = code
        self.operation = operation
        self.message = message
        self.status = status
    }

    public var description: String {
        "\(operation) failed: \(message)" + (status.map { " (status \($0))" } ?? "")
    }
}
