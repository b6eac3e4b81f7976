import VoiceWire

/// What the game server orders through the admin API: server mutes, moves between channels, kicks.
/// Same thread contract as `RelayState`.
extension RelayState {
    /// Drops (true) or lets through (false) the member's voice, and tells its client.
    func setServerMute(_ muted: Bool, of member: RelayMember) {
        logger.info(
            muted ? "server-muted by the game server" : "server mute lifted by the game server",
            metadata: ["match": "\(member.match.id)", "participant": "\(member.participant)"])
        member.serverMuted = muted
        notify(member, .serverMute(muted))
    }

    /// Makes `channel` the member's only started voice channel (0: none), and tells its client.
    func move(_ member: RelayMember, toChannel channel: ChannelNumber) {
        logger.info(
            "moved by the game server",
            metadata: [
                "match": "\(member.match.id)", "participant": "\(member.participant)",
                "channel": "\(channel == 0 ? "none" : member.match.name(of: channel))",
            ])
        member.channels = channel == 0 ? [] : [channel]
        notify(member, .moved(channel: channel))
        describeToPeers(member)
    }

    /// Removes the participant from the match, media and signalling, telling its clients; false
    /// when it had neither.
    func kick(match: String, participant: String) -> Bool {
        let hadSignalling = kickSignalling(match: match, participant: participant)
        guard let member = member(match: match, participant: participant) else { return hadSignalling }
        notify(member, .kicked(.admin))
        let connection = member.tcpConnection
        remove(member, because: "kicked by the game server")
        if let connection { actions.append(.close(connection)) }
        return true
    }
}
