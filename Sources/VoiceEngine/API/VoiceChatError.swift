import VoiceCodec
import VoiceCore
import VoiceMedia

/// Why a control request was refused. The engine's state is unchanged.
public enum VoiceChatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// There is already a call with this participant.
    case alreadyInCall(with: ParticipantID)
    /// No call has this ID (it ended, or never existed).
    case unknownCall(CallID)
    /// The call is not waiting for this participant's answer.
    case notAnInvitation(CallID)
    /// There is no call with this participant.
    case noCall(with: ParticipantID)
    /// A participant cannot call itself.
    case callingSelf
    /// The value is outside what the control accepts.
    case outOfRange(String)
    /// The match is already left; create a new one to rejoin.
    case matchLeft(String)
    /// A player list or ID the match cannot use.
    case invalidPlayers(String)
    /// Two channel names of one match map to the same channel number.
    case channelNumberInUse(name: String, by: String)
    /// The data is larger than the mode allows.
    case dataTooLarge(bytes: Int, maximum: Int, mode: GameDataMode)
    /// The engine has been shut down.
    case engineShutDown
    /// A setting outside what it may be (the delay budget, speech processing): the error names it.
    case invalidSetting(CodecError)
    /// A codec or the echo canceller could not be set up.
    case codec(CodecError)
    /// The mixer refused a channel, a stream or a setting.
    case mixer(MixerError)
    /// A microphone or speaker would not start.
    case device(AudioDeviceError)
    /// The engine's thread or courier would not start.
    case thread(AudioThreadError)
    /// So many orders wait for the engine thread that it has not run for a while (`EngineOrder`).
    case ordersBacklogged(Int)

    public var description: String {
        switch self {
        case .alreadyInCall(let participant):
            "already in a call with \"\(participant)\"; stop it first"
        case .unknownCall(let call):
            "no call \(call); it has ended or never existed"
        case .notAnInvitation(let call):
            "call \(call) is not an invitation waiting for an answer"
        case .noCall(let participant):
            "no call with \"\(participant)\""
        case .callingSelf:
            "a participant cannot call itself"
        case .outOfRange(let reason):
            reason
        case .matchLeft(let match):
            "match \"\(match)\" was left; create a new Match to rejoin"
        case .invalidPlayers(let reason):
            reason
        case .channelNumberInUse(let name, let other):
            "channel \"\(name)\" maps to the same channel number as \"\(other)\"; choose another name"
        case .dataTooLarge(let bytes, let maximum, let mode):
            "\(bytes) bytes of \(mode.rawValue) game data exceed the maximum of \(maximum)"
        case .engineShutDown:
            "the voice engine has been shut down"
        case .invalidSetting(let error):
            error.message
        case .codec(let error as any Error), .mixer(let error as any Error), .device(let error as any Error),
            .thread(let error as any Error):
            "could not set up audio: \(error)"
        case .ordersBacklogged(let count):
            "\(count) orders already wait for the engine thread, which has not run them; it is stalled or "
                + "stopped: call less often, or check that the engine runs"
        }
    }
}
