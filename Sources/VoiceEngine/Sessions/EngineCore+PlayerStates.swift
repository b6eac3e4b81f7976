import VoiceCore
import VoiceWire

extension EngineCore {
    /// Reports every player's state in every channel of a match that changed since last time.
    func updatePlayerStates(_ session: MatchSession) {
        for channel in session.channels.values {
            for peer in session.peers.values {
                let state = playerState(peer, channel: channel, in: session)
                let key = PlayerStateKey(channel: channel.number, player: peer.participant)
                guard session.reportedStates[key] != state else { continue }
                let previous = session.reportedStates[key]
                // In place when the player has a state already (every time but the first), so that
                // a speaker starting or stopping costs the engine thread no allocation.
                if session.reportedStates.modifyValue(forKey: key, { $0 = state }) == nil {
                    session.reportedStates[key] = state
                }
                // A player's first state is only news once it is more than "connecting".
                if previous == nil && state == .connecting { continue }
                emit(.playerState(channel: channel.name, player: peer.participant, state: state), in: session)
            }
        }
    }

    private func playerState(_ peer: RemotePeer, channel: LocalChannel, in session: MatchSession) -> PlayerState {
        if peer.isGone { return .disconnected }
        guard peer.activeRoute != nil else { return .connecting }
        let previous = session.reportedStates[PlayerStateKey(channel: channel.number, player: peer.participant)]
        // The path comes up from the player's hello, which lists the channels it has started: a
        // reachable player whose list lacks this one is not in it, whether it left or never came.
        guard peer.startedChannels.contains(channel.number) else { return .disconnected }
        if session.incoming.isSpeaking(peer.mediaID, channel: channel.number) { return .speaking }
        // Once a player has spoken in the channel, a quiet stream is "silent", not just "connected".
        return previous == .speaking || previous == .silent ? .silent : .connected
    }
}
