/// Turns one request line into a call on the control and a reply. Pure apart from the control: the
/// socket server runs it per line, and tests run it directly.
public struct ControlDispatcher: Sendable {
    /// What a connection must do about its subscription after a request.
    public enum SubscriptionChange: Sendable, Hashable {
        case subscribe(intervalMilliseconds: Int)
        case unsubscribe
    }

    public let control: any VoiceSessionControl

    public init(control: any VoiceSessionControl) { self.control = control }

    public func handle(_ line: some Collection<UInt8>) -> (reply: ControlReply, change: SubscriptionChange?) {
        let (id, parsed) = ControlRequest.parse(line)
        switch parsed {
        case .failure(let error):
            return (.failure(id: id, error), nil)
        case .success(let request):
            do throws(ControlError) {
                return try perform(request)
            } catch {
                return (.failure(id: id, error), nil)
            }
        }
    }

    /// Runs a validated request. Fields the command requires are present (`parse` checked them).
    private func perform(_ request: ControlRequest) throws(ControlError) -> (
        reply: ControlReply, change: SubscriptionChange?
    ) {
        let ok = ControlReply(id: request.id, ok: true)
        switch request.command {
        case .mute: try control.setMicrophoneMuted(true)
        case .unmute: try control.setMicrophoneMuted(false)
        case .pushToTalk: try control.setPushToTalk(try required(request.enabled, "enabled", request))
        case .talk: try control.setTalking(try required(request.down, "down", request))
        case .setVolume:
            try control.setVolume(try required(request.volume, "volume", request), channel: request.channel)
        case .mutePlayer, .unmutePlayer:
            try control.setPlayer(
                try required(request.player, "player", request), muted: request.command == .mutePlayer,
                channel: request.channel)
        case .setPlayerVolume:
            try control.setPlayerVolume(
                try required(request.volume, "volume", request), player: try required(request.player, "player", request)
            )
        case .setSpeechProcessing:
            try control.setSpeechProcessing(
                denoise: request.denoise, automaticGainControl: request.agc,
                voiceActivityThresholdDBFS: request.vadThresholdDB)
        case .setPosition:
            try control.setPosition(
                try required(request.position, "x", request), right: request.right, player: request.player)
        case .setProximity:
            try control.setProximity(request.proximity, channel: try required(request.channel, "channel", request))
        case .startChannel: try control.startChannel(try required(request.channel, "channel", request))
        case .stopChannel: try control.stopChannel(try required(request.channel, "channel", request))
        case .activateChannel: try control.activateChannel(try required(request.channel, "channel", request))
        case .setMaxDelay:
            try control.setMaximumDelay(milliseconds: try required(request.milliseconds, "milliseconds", request))
        case .stats:
            return (ControlReply(id: request.id, ok: true, snapshot: control.snapshot()), nil)
        case .subscribe:
            let interval = request.intervalMilliseconds ?? ControlRequest.defaultIntervalMilliseconds
            return (
                ControlReply(id: request.id, ok: true, intervalMilliseconds: interval),
                .subscribe(intervalMilliseconds: interval)
            )
        case .unsubscribe:
            return (ok, .unsubscribe)
        case .help:
            let commands = ControlCommand.allCases.map { ControlCommandHelp(command: $0.rawValue, summary: $0.summary) }
            return (ControlReply(id: request.id, ok: true, commands: commands), nil)
        }
        return (ok, nil)
    }

    private func required<Value>(_ value: Value?, _ field: String, _ request: ControlRequest) throws(ControlError)
        -> Value
    {
        guard let value else { throw .badRequest("\(request.command.rawValue) needs field \"\(field)\"") }
        return value
    }
}
