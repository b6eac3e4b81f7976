import NIOCore
import VoiceWire

/// Who is in which match on a relay, and by which transport: the matches, each member by its UDP
/// address and its TCP connection, and how many members there are in all.
///
/// Part of `RelayState`, on its event loop; it does no I/O, logs nothing and sends nothing: the
/// state says what a change means to the members.
final class RelayRoster {
    private(set) var matches: [String: RelayMatch] = [:]
    private var udpMembers: [SocketAddress: RelayMember] = [:]
    private var tcpMembers: [RelayConnectionID: RelayMember] = [:]
    private(set) var participantCount = 0

    @inline(__always)
    func member(for source: RelaySource) -> RelayMember? {
        switch source {
        case .udp(let address): udpMembers[address]
        case .tcp(let connection): tcpMembers[connection]
        }
    }

    func member(match: String, participant: String) -> RelayMember? {
        matches[match]?.member(participant: participant)
    }

    /// Members that sent voice within the last second.
    func currentSenders(now: UInt64) -> Int {
        var count = 0
        for match in matches.values {
            for member in match.members where member.lastVoice != 0 && now &- member.lastVoice < 1_000_000_000 {
                count += 1
            }
        }
        return count
    }

    /// The member `participant` of `match` is, or becomes if there is room (`isNew`); or why it
    /// cannot be.
    func admit(
        _ participant: String, mediaID: MediaID, match id: String, limits: RelayLimits, now: UInt64
    ) -> Place {
        let match = matches[id] ?? RelayMatch(id: id)
        if let existing = match.member(participant: participant) { return .member(existing, isNew: false) }
        guard match.member(mediaID: mediaID) == nil else { return .refused(.mediaIDCollision) }
        guard match.members.count < limits.maximumMembersPerMatch else { return .refused(.matchFull) }
        guard participantCount < limits.maximumParticipants else { return .refused(.relayFull) }
        let member = RelayMember(match: match, participant: participant, mediaID: mediaID, limits: limits, now: now)
        match.members.append(member)
        matches[match.id] = match
        participantCount += 1
        return .member(member, isNew: true)
    }

    /// A joining participant's place: its membership, or why there is none.
    enum Place {
        case member(RelayMember, isNew: Bool)
        case refused(RelayRefusal)
    }

    /// Every member's transports not heard from within `timeout` before `now`, UDP before TCP.
    func silentTransports(now: UInt64, timeout: UInt64) -> [(RelaySource, RelayMember)] {
        var silent: [(RelaySource, RelayMember)] = []
        for match in matches.values {
            for member in match.members {
                if let address = member.udpAddress, now &- member.lastHeardUDP > timeout {
                    silent.append((.udp(address), member))
                }
                if let connection = member.tcpConnection, now &- member.lastHeardTCP > timeout {
                    silent.append((.tcp(connection), member))
                }
            }
        }
        return silent
    }

    /// Puts `member` at `source` from `now` on; returns the transport of that kind it had until
    /// now, if another one, which no longer belongs to it.
    func attach(_ source: RelaySource, to member: RelayMember, now: UInt64) -> RelaySource? {
        switch source {
        case .udp(let address):
            let old = member.udpAddress
            Self.index(member, at: address, replacing: old, in: &udpMembers)
            member.udpAddress = address
            member.lastHeardUDP = now
            return old.flatMap { $0 != address ? .udp($0) : nil }
        case .tcp(let connection):
            let old = member.tcpConnection
            Self.index(member, at: connection, replacing: old, in: &tcpMembers)
            member.tcpConnection = connection
            member.lastHeardTCP = now
            return old.flatMap { $0 != connection ? .tcp($0) : nil }
        }
    }

    /// Files `member` under `key`, and no longer under `old`, its previous key of that kind.
    private static func index<Key: Hashable>(
        _ member: RelayMember, at key: Key, replacing old: Key?, in members: inout [Key: RelayMember]
    ) {
        if let old, old != key { members[old] = nil }
        members[key] = member
    }

    /// Takes `source` from `member`, if it is still its transport.
    func detach(_ source: RelaySource, from member: RelayMember) {
        switch source {
        case .udp(let address):
            if member.udpAddress == address {
                member.udpAddress = nil
                udpMembers[address] = nil
            }
        case .tcp(let connection):
            if member.tcpConnection == connection {
                member.tcpConnection = nil
                tcpMembers[connection] = nil
            }
        }
    }

    /// Takes the member off its transports and out of its match, and the match out of the roster
    /// once it is empty.
    func remove(_ member: RelayMember) {
        if let address = member.udpAddress, udpMembers[address] === member { udpMembers[address] = nil }
        if let connection = member.tcpConnection, tcpMembers[connection] === member {
            tcpMembers[connection] = nil
        }
        member.udpAddress = nil
        member.tcpConnection = nil
        let match = member.match
        let before = match.members.count
        match.members.removeAll { $0 === member }
        if match.members.count < before { participantCount -= 1 }
        if match.members.isEmpty { matches[match.id] = nil }
    }

    /// Empties the roster, for a relay shutting down; returns the matches it held.
    func removeAll() -> [RelayMatch] {
        let all = Array(matches.values)
        matches = [:]
        udpMembers = [:]
        tcpMembers = [:]
        participantCount = 0
        return all
    }
}
