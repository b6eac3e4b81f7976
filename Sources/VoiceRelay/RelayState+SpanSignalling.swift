import VoiceWire

/// The signalling of a match that spans relays: who is attached to it on the other relays, so that
/// a roster lists the whole match and the attached here hear who comes and goes there (the
/// signals themselves cross in `forwardSignal`). Same thread contract as `RelayState`.
extension RelayState {
    /// `participant` is attached to `match`'s signalling on `peer`: the signalling members here
    /// hear of it when it is new to them.
    func attachedRemotely(_ participant: String, to match: String, on peer: RelayPeer, now: UInt64) {
        // One attached here is this relay's; another relay's word of it is a leftover of a move.
        guard signallingMatches[match]?[participant] == nil else { return }
        let isNew = spans.remoteSignalling[match]?[participant] == nil
        if isNew {
            guard signallingRosterCount(of: match) <= RelayMessage.maximumRosterEntries else {
                return drop(.peerUnknown, member: nil)
            }
            send(.memberJoined(participant), to: signallingSources(of: match))
        }
        spans.remoteSignalling[match, default: [:]][participant] = (peer.node, now)
    }

    /// Forgets a participant attached on another relay, telling those attached here.
    func forgetRemoteSignalling(_ participant: String, of match: String) {
        guard spans.remoteSignalling[match]?.removeValue(forKey: participant) != nil else { return }
        if spans.remoteSignalling[match]?.isEmpty == true { spans.remoteSignalling[match] = nil }
        send(.memberLeft(participant), to: signallingSources(of: match))
    }

    /// Every connection attached to `match`'s signalling here.
    func signallingSources(of match: String) -> [RelaySource] {
        (signallingMatches[match]?.values).map { $0.map { .tcp($0.connection) } } ?? []
    }

    /// Participants attached to `match`'s signalling, here and on other relays.
    func signallingRosterCount(of match: String) -> Int {
        (signallingMatches[match]?.count ?? 0) + (spans.remoteSignalling[match]?.count ?? 0)
    }
}
