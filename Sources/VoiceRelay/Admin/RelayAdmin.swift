import NIOCore
import VoiceCore
import VoiceWire

/// Why an admin operation failed.
public enum RelayAdminError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownMatch(String)
    case unknownParticipant(match: String, participant: String)
    /// The relay has not started or has shut down.
    case notRunning
    /// A position that is not three finite numbers.
    case invalidPosition(VoicePosition)

    public var description: String {
        switch self {
        case .unknownMatch(let match): "the relay has no match \"\(match)\" (no member has joined it)"
        case .unknownParticipant(let match, let participant):
            "participant \"\(participant)\" is not a member of match \"\(match)\" on this relay"
        case .notRunning: "the relay is not running"
        case .invalidPosition(let position): "position \(position) is not three finite numbers"
        }
    }
}

/// One member as the admin API shows it.
public struct RelayParticipantInfo: Sendable, Hashable {
    public var participant: String
    public var mediaID: MediaID
    public var channels: [ChannelNumber]
    /// `channels` by the names the players gave them (`#number` where nobody did).
    public var channelNames: [String]
    public var muted: [MediaID]
    public var serverMuted: Bool
    public var overUDP: Bool
    public var overTCP: Bool
    /// Sent voice within the last second.
    public var isSending: Bool
    public var counters: RelayCounters
    /// Where it stands, if it or the game server said so.
    public var position: VoicePosition?
    /// Whether the game server placed it (its own reports are then ignored).
    public var isPlacedByServer: Bool
    /// The channels it hears positionally, and the range on each.
    public var hearingRanges: [ChannelNumber: Float]
}

public struct RelayMatchInfo: Sendable, Hashable {
    public var match: String
    public var participants: [String]

    public init(match: String, participants: [String]) {
        self.match = match
        self.participants = participants
    }
}

/// Global figures (the same ones published to swift-metrics).
public struct RelayStatistics: Sendable, Hashable {
    public var counters: RelayCounters
    public var joins: Int
    /// Refused joins per reason.
    public var refusals: [RelayRefusal: Int]
    public var participants: Int
    public var matches: Int
    public var currentSenders: Int
    /// Participants attached to a match's signalling (counted apart from media members).
    public var signallingParticipants: Int = 0
    /// Successful signalling joins (including replacing connections).
    public var signallingJoins: Int = 0
}

/// Control of a running relay for the game server that embeds it. Every call hops onto the relay's
/// event loop, so it sees and changes the same state the forwarding path uses, without locks.
public struct RelayAdmin: Sendable {
    let loop: any EventLoop
    let io: NIOLoopBoundBox<RelayIO>
    /// False once the relay has shut down: its loop may be gone, and work submitted to a loop that
    /// has shut down never completes.
    let isRunning: @Sendable () -> Bool

    /// Drops (true) or lets through (false) the participant's voice at the relay, and tells its client.
    public func setServerMute(_ muted: Bool, participant: String, match: String) async throws(RelayAdminError) {
        try await withMember(match: match, participant: participant) { state, member in
            state.setServerMute(muted, of: member)
        }
    }

    /// Makes `channel` the participant's only started voice channel (0: none), and tells its client.
    /// A channel nobody has started yet is allowed (the first of a new team); see `members(in:match:)`.
    public func move(participant: String, match: String, toChannel channel: ChannelNumber) async throws(RelayAdminError)
    {
        try await withMember(match: match, participant: participant) { state, member in
            state.move(member, toChannel: channel)
        }
    }

    /// The members of `match` that have `channel` started, sorted: none for a channel nobody is in
    /// (or a name mistyped).
    public func members(in channel: ChannelNumber, match: String) async throws(RelayAdminError) -> [String] {
        try await onLoop { state -> Result<[String], RelayAdminError> in
            guard let members = state.matches[match]?.members else { return .failure(.unknownMatch(match)) }
            return .success(members.filter { $0.channels.contains(channel) }.map(\.participant).sorted())
        }
    }

    /// Places the participant at `position` for the match's positional channels, whatever its
    /// client reports from now on (the game server is the authority on where players stand); nil
    /// lets its client's reports count again.
    public func setPosition(_ position: VoicePosition?, participant: String, match: String)
        async throws(RelayAdminError)
    {
        if let position, !position.isFinite { throw .invalidPosition(position) }
        try await withMember(match: match, participant: participant) { state, member in
            state.placeByServer(member, at: position)
        }
    }

    /// Removes the participant from the match (media and signalling); its clients are told and must
    /// get a new token to return.
    public func kick(participant: String, match: String) async throws(RelayAdminError) {
        try await onLoop { state -> Result<Void, RelayAdminError> in
            if state.kick(match: match, participant: participant) { return .success(()) }
            return state.matches[match] == nil
                ? .failure(.unknownMatch(match))
                : .failure(.unknownParticipant(match: match, participant: participant))
        }
    }

    /// Participants attached to the match's signalling, sorted (empty when none is).
    public func signallingMembers(match: String) async throws(RelayAdminError) -> [String] {
        try await onLoop { state -> Result<[String], RelayAdminError> in
            .success((state.signallingMatches[match]?.keys).map { $0.sorted() } ?? [])
        }
    }

    public func matches() async throws(RelayAdminError) -> [RelayMatchInfo] {
        try await onLoop { state -> Result<[RelayMatchInfo], RelayAdminError> in
            .success(
                state.matches.values.map { RelayMatchInfo(match: $0.id, participants: $0.members.map(\.participant)) }
                    .sorted { $0.match < $1.match })
        }
    }

    public func participants(match: String) async throws(RelayAdminError) -> [RelayParticipantInfo] {
        try await onLoop { state -> Result<[RelayParticipantInfo], RelayAdminError> in
            guard let found = state.matches[match] else { return .failure(.unknownMatch(match)) }
            let now = NIODeadline.now().uptimeNanoseconds
            return .success(
                found.members.map { member in
                    RelayParticipantInfo(
                        participant: member.participant, mediaID: member.mediaID, channels: member.channels,
                        channelNames: member.channels.map { found.name(of: $0) }, muted: member.muted,
                        serverMuted: member.serverMuted, overUDP: member.udpAddress != nil,
                        overTCP: member.tcpConnection != nil,
                        isSending: member.lastVoice != 0 && now &- member.lastVoice < 1_000_000_000,
                        counters: member.counters, position: member.position,
                        isPlacedByServer: member.isPlacedByServer,
                        hearingRanges: Dictionary(
                            uniqueKeysWithValues: member.hearings.map { ($0.channel, $0.range.range) }))
                })
        }
    }

    public func statistics() async throws(RelayAdminError) -> RelayStatistics {
        try await onLoop { state -> Result<RelayStatistics, RelayAdminError> in
            var refusals: [RelayRefusal: Int] = [:]
            for reason in RelayRefusal.allCases where state.refusals[Int(reason.rawValue)] > 0 {
                refusals[reason] = state.refusals[Int(reason.rawValue)]
            }
            return .success(
                RelayStatistics(
                    counters: state.counters, joins: state.joins, refusals: refusals,
                    participants: state.participantCount, matches: state.matches.count,
                    currentSenders: state.currentSenders(now: NIODeadline.now().uptimeNanoseconds),
                    signallingParticipants: state.signallingCount, signallingJoins: state.signallingJoins))
        }
    }

    /// The matches the cluster placed here, sorted.
    public func homeMatches() async throws(RelayAdminError) -> [String] {
        try await onLoop { state -> Result<[String], RelayAdminError> in .success(state.placement.home.sorted()) }
    }

    /// Takes in the cluster's listing of the matches that span relays: by match, every relay
    /// holding part of it. Returns the matches held here that span other relays without this
    /// relay being listed among them (its part is to be listed).
    public func spansListed(_ listing: [String: [RelayNode]]) async throws(RelayAdminError) -> [String] {
        try await onLoop { state -> Result<[String], RelayAdminError> in
            .success(state.spansListed(listing, now: NIODeadline.now().uptimeNanoseconds))
        }
    }

    /// The cluster gave `match` another home (`decision`): its players here are told to move there.
    public func matchMoved(_ match: String, to decision: RelayPlacementDecision) async throws(RelayAdminError) {
        try await onLoop { state -> Result<Void, RelayAdminError> in
            state.movedAway(match, decision)
            return .success(())
        }
    }

    private func withMember(
        match: String, participant: String, _ body: @escaping @Sendable (RelayState, RelayMember) -> Void
    ) async throws(RelayAdminError) {
        try await onLoop { state -> Result<Void, RelayAdminError> in
            guard let member = state.member(match: match, participant: participant) else {
                return state.matches[match] == nil
                    ? .failure(.unknownMatch(match))
                    : .failure(.unknownParticipant(match: match, participant: participant))
            }
            body(state, member)
            return .success(())
        }
    }

    private func onLoop<T: Sendable>(_ body: @escaping @Sendable (RelayState) -> Result<T, RelayAdminError>)
        async throws(RelayAdminError) -> T
    {
        guard isRunning() else { throw .notRunning }
        let io = self.io
        let result: Result<T, RelayAdminError>
        do {
            result = try await loop.submit { io.value.update(body) }.get()
        } catch {
            throw .notRunning
        }
        return try result.get()
    }
}
