import CVoiceChatABI
import VoiceEngine

/// The code and words for what the engine refused.
func failure(_ error: VoiceChatError) -> CallFailure {
    switch error {
    case .unknownCall, .noCall: CallFailure(VC_ERROR_NOT_FOUND, error.description)
    case .notAnInvitation, .alreadyInCall, .matchLeft, .engineShutDown:
        CallFailure(VC_ERROR_INVALID_STATE, error.description)
    case .ordersBacklogged: CallFailure(VC_ERROR_BUSY, error.description)
    case .codec, .mixer, .device, .thread: CallFailure(VC_ERROR_SYSTEM, error.description)
    case .callingSelf, .outOfRange, .invalidSetting, .invalidPlayers, .channelNumberInUse, .dataTooLarge:
        CallFailure(VC_ERROR_INVALID_ARGUMENT, error.description)
    }
}

/// Runs an engine call, its refusal made a C failure.
func engineCall<Value>(_ body: () throws(VoiceChatError) -> Value) throws(CallFailure) -> Value {
    do {
        return try body()
    } catch {
        throw failure(error)
    }
}
