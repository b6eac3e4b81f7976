import CVoiceOpus

extension CodecError {
    /// A libopus failure: the code that fits the status, and `opus_strerror`'s message.
    ///
    /// Building the message allocates; the success paths of the codec types never come here.
    init(opusStatus status: Int32, operation: String) {
        self.init(
            Self.code(forOpusStatus: status), operation: operation,
            message: String(cString: opus_strerror(status)), status: status)
    }

    static func code(forOpusStatus status: Int32) -> Code {
        switch status {
        case OPUS_BAD_ARG: .invalidArgument
        case OPUS_BUFFER_TOO_SMALL: .bufferTooSmall
        case OPUS_INVALID_PACKET: .invalidPacket
        case OPUS_ALLOC_FAIL: .allocationFailed
        // OPUS_UNIMPLEMENTED means a request the library does not know: a setting it cannot take.
        case OPUS_UNIMPLEMENTED: .invalidArgument
        default: .internalError
        }
    }

    /// Throws unless `status` is OPUS_OK (or a non-negative count).
    @inline(__always)
    static func checkOpus(_ status: Int32, _ operation: String) throws(CodecError) {
        if status < 0 { throw CodecError(opusStatus: status, operation: operation) }
    }

    /// A setting outside what is allowed, naming the setting, the value and what is allowed.
    public static func invalidSetting(_ operation: String, setting: String, value: String, allowed: String)
        -> CodecError
    {
        CodecError(.invalidArgument, operation: operation, message: "\(setting) is \(value); allowed: \(allowed)")
    }
}
