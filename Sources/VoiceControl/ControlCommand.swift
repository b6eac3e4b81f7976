/// The commands a control socket accepts, with the fields each takes.
public enum ControlCommand: String, Sendable, Hashable, CaseIterable, Codable {
    case mute
    case unmute
    case pushToTalk = "push-to-talk"
    case talk
    case setVolume = "set-volume"
    case mutePlayer = "mute-player"
    case unmutePlayer = "unmute-player"
    case setPlayerVolume = "set-player-volume"
    case startChannel = "start-channel"
    case stopChannel = "stop-channel"
    case activateChannel = "activate-channel"
    case setMaxDelay = "set-max-delay"
    case setSpeechProcessing = "set-speech-processing"
    case setPosition = "set-position"
    case setProximity = "set-proximity"
    case stats
    case subscribe
    case unsubscribe
    case help

    /// Fields besides "id" and "command", each with whether it is required.
    var fields: [(name: String, required: Bool)] {
        switch self {
        case .mute, .unmute, .stats, .unsubscribe, .help: []
        case .pushToTalk: [("enabled", true)]
        case .talk: [("down", true)]
        case .setVolume: [("volume", true), ("channel", false)]
        case .mutePlayer, .unmutePlayer: [("player", true), ("channel", false)]
        case .setPlayerVolume: [("player", true), ("volume", true)]
        case .startChannel, .stopChannel, .activateChannel: [("channel", true)]
        case .setMaxDelay: [("milliseconds", true)]
        case .setSpeechProcessing: [("denoise", false), ("agc", false), ("vadThresholdDB", false)]
        case .setPosition: [("x", true), ("y", true), ("z", true), ("right", false), ("player", false)]
        case .setProximity: [("channel", true), ("range", true), ("referenceDistance", false), ("rolloff", false)]
        case .subscribe: [("intervalMilliseconds", false)]
        }
    }

    /// One line of help.
    public var summary: String {
        switch self {
        case .mute: "mute the microphone"
        case .unmute: "unmute the microphone"
        case .pushToTalk: "turn push-to-talk on or off: {\"enabled\": true}"
        case .talk: "press or release the push-to-talk key: {\"down\": true}"
        case .setVolume:
            "set the volume 0…1 of a channel, or of the call / every channel without one: "
                + "{\"volume\": 0.5, \"channel\": \"team\"}"
        case .mutePlayer: "mute a player in a channel, or everywhere without one: {\"player\": \"bob\"}"
        case .unmutePlayer: "unmute a player: {\"player\": \"bob\", \"channel\": \"team\"}"
        case .setPlayerVolume:
            "set one player's own volume 0…2 (1 as sent) in every channel: {\"player\": \"bob\", \"volume\": 1.5}"
        case .startChannel: "start hearing a channel, opening it if the session has not: {\"channel\": \"team\"}"
        case .stopChannel: "stop a channel: {\"channel\": \"team\"}"
        case .activateChannel: "give the microphone to a channel: {\"channel\": \"team\"}"
        case .setMaxDelay:
            "the most delay the engine may add, mouth to ear, 40…1000 ms; protection is chosen within it: "
                + "{\"milliseconds\": 150}"
        case .setSpeechProcessing:
            "noise suppression, automatic gain control and the level below which nothing is sent as speech "
                + "(-120…0 dBFS), any of them: {\"denoise\": true, \"agc\": false, \"vadThresholdDB\": -50}"
        case .setPosition:
            "where this player stands in the game's world (or another player, with \"player\"), for positional "
                + "channels, and the direction to this player's right, for a stereo speaker: "
                + "{\"x\": 12, \"y\": 0, \"z\": -3.5, \"right\": [1, 0, 0]} or {\"x\": 3, \"y\": 0, \"z\": 9, \"player\": \"bob\"}"
        case .setProximity:
            "make a channel positional: heard within range, full level within referenceDistance (default 1), "
                + "rolloff inverse (default) or linear; range 0 hears it whole again: "
                + "{\"channel\": \"field\", \"range\": 40, \"referenceDistance\": 2, \"rolloff\": \"linear\"}"
        case .stats: "reply with one snapshot of levels, paths and network statistics"
        case .subscribe:
            "push {\"event\": \"stats\", \"snapshot\": …} every intervalMilliseconds (default 1000, 50…60000) "
                + "until unsubscribe"
        case .unsubscribe: "stop the pushes"
        case .help: "list the commands"
        }
    }
}

/// One entry of the `help` reply.
public struct ControlCommandHelp: Sendable, Hashable, Codable {
    public var command: String
    public var summary: String
}
