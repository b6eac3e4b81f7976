import Logging
import NIOCore
import VoiceCore
import VoiceWire

/// Matches that span relays of a cluster: a match whose part here is full takes its next players
/// on another relay (`RelayState+Spill`), and the relays holding its parts link up. Each tells
/// the others what they need of its players (channels, mutes, ranges, positions), so that each
/// holds the others' players as `RelayMatch.remote` and decides with them, as for its own, who
/// hears whom. A relay forwards its players' voice once to each other relay where a player may
/// hear it, sealed as it came, and that relay fans it out to its own players. Same thread contract
/// as `RelayState`.
extension RelayState {
    /// A player on another relay that has not been described for this long is taken for gone
    /// (its relay redescribes every player at each sweep).
    static let peerPlayerTimeout: UInt64 = 3_000_000_000
    /// A link younger than this stays even when the cluster's listing does not show it yet.
    static let linkGrace: UInt64 = 2_000_000_000
    /// Players on other relays a match holds at most, whatever its peers say.
    static let maximumRemotePlayers = 4_096

    // MARK: Linking

    /// From now on `match` spans the relay `node` too: each tells the other of its players.
    func link(_ match: String, to node: String, at address: String, now: UInt64) {
        guard let identity = spans.identity, node != identity.node else { return }
        let peer = spans.peer(node, at: address)
        guard spans.links[match]?[node] == nil else { return }
        spans.links[match, default: [:]][node] = now
        logger.info(
            "linked a match with another relay of the cluster",
            metadata: ["match": "\(match)", "node": "\(node)", "address": "\(address)"])
        sendPeer(.hello, of: match, to: peer)
        describeAll(of: match, to: peer)
    }

    /// `match` no longer spans `node`: its players there are forgotten here.
    func unlink(_ match: String, from node: String) {
        guard spans.links[match]?.removeValue(forKey: node) != nil else { return }
        if spans.links[match]?.isEmpty == true { spans.links[match] = nil }
        logger.info("unlinked a match from another relay", metadata: ["match": "\(match)", "node": "\(node)"])
        for (participant, attached) in spans.remoteSignalling[match] ?? [:] where attached.node == node {
            forgetRemoteSignalling(participant, of: match)
        }
        guard let held = roster.matches[match] else { return }
        for player in held.remote where player.peer?.node == node { removeRemote(player) }
    }

    /// Every match with part of it on other relays, as the cluster lists them: the relays holding
    /// each (this one among them, if it does). Links what this relay holds, or was given part of,
    /// with the others, and unlinks relays no longer listed. Returns the matches held here that
    /// span other relays without listing this one: its part must be listed too.
    func spansListed(_ listing: [String: [RelayNode]], now: UInt64) -> [String] {
        guard let identity = spans.identity else { return [] }
        var unlisted: [String] = []
        for (match, holders) in listing.sorted(by: { $0.key < $1.key }) {
            let listsHere = holders.contains { $0.node == identity.node }
            let holdsHere = roster.matches[match] != nil || signallingMatches[match] != nil
            guard listsHere || holdsHere else { continue }
            if holdsHere, !listsHere, holders.contains(where: { $0.node != identity.node }) { unlisted.append(match) }
            for holder in holders where holder.node != identity.node {
                link(match, to: holder.node, at: holder.address, now: now)
            }
        }
        for (match, links) in spans.links {
            let listed = Set(listing[match]?.map(\.node) ?? [])
            for (node, linkedAt) in links where !listed.contains(node) && now &- linkedAt > Self.linkGrace {
                unlink(match, from: node)
            }
        }
        return unlisted
    }

    /// Forgets every link of `match` (this relay no longer holds part of it).
    func dropLinks(_ match: String) {
        for node in (spans.links[match]?.keys).map(Array.init) ?? [] { unlink(match, from: node) }
        spans.remoteSignalling[match] = nil
        spans.full.remove(match)
    }

    // MARK: Telling the others

    /// Tells every relay linked in `member`'s match what it needs of the member.
    func describeToPeers(_ member: RelayMember) {
        guard member.peer == nil, spans.links[member.match.id] != nil else { return }
        tellPeers(.members([Self.description(of: member)]), of: member.match.id)
    }

    /// Sends `body` about `match` to every relay linked in it.
    func tellPeers(_ body: RelayPeerMessage.Body, of match: String) {
        guard let links = spans.links[match] else { return }
        for node in links.keys.sorted() {
            if let peer = spans.peers[node] { sendPeer(body, of: match, to: peer) }
        }
    }

    /// Tells every relay linked in `member`'s match that it left.
    func tellPeersGone(_ member: RelayMember) {
        guard member.peer == nil else { return }
        tellPeers(.gone([member.mediaID]), of: member.match.id)
    }

    /// Tells `peer` of every player of `match` here, media and signalling, as few to a message as fit.
    func describeAll(of match: String, to peer: RelayPeer) {
        if let held = roster.matches[match] {
            var batch: [RelayPeerMember] = []
            var bytes = 0
            for member in held.members {
                let described = Self.description(of: member)
                let size = RelayPeerMessage.encodedBytes(of: described)
                if batch.count == RelayPeerMessage.maximumMembers || bytes + size > Self.descriptionBytes {
                    sendPeer(.members(batch), of: match, to: peer)
                    batch.removeAll(keepingCapacity: true)
                    bytes = 0
                }
                batch.append(described)
                bytes += size
            }
            if !batch.isEmpty { sendPeer(.members(batch), of: match, to: peer) }
        }
        if let attached = signallingMatches[match]?.keys.sorted() {
            for start in stride(from: 0, to: attached.count, by: RelayPeerMessage.maximumNames) {
                let names = Array(attached[start..<min(start + RelayPeerMessage.maximumNames, attached.count)])
                sendPeer(.signalling(names), of: match, to: peer)
            }
        }
    }

    /// Bytes of player descriptions one message carries at most: with its header, it fits a datagram
    /// of an Ethernet frame.
    static let descriptionBytes = 1_200

    static func description(of member: RelayMember) -> RelayPeerMember {
        RelayPeerMember(
            mediaID: member.mediaID, participant: member.participant, channels: member.channels, muted: member.muted,
            hearingRanges: Dictionary(member.hearings.map { ($0.channel, $0.range.range) }) { first, _ in first },
            position: member.position)
    }

    // MARK: Forwarding to the others

    /// Sends `sender`'s envelope once to each relay where a player of its match may want it.
    func forwardToPeers(_ buffer: ByteBuffer, header: SealedEnvelopeHeader, from sender: RelayMember, isVoice: Bool) {
        spans.pass &+= 1
        let pass = spans.pass
        // Read out of the buffer once, whichever relays it goes to.
        var envelope: [UInt8]?
        for recipient in sender.match.remote {
            guard let peer = recipient.peer, peer.copyPass != pass, recipient.listens(to: header.channel) else {
                continue
            }
            if isVoice, !wantsRemotely(recipient, voiceFrom: sender, on: header.channel) { continue }
            peer.copyPass = pass
            if envelope == nil { envelope = Self.bytes(of: buffer) }
            sendVoice(envelope!, of: sender.match, to: peer)
        }
    }

    static func bytes(of buffer: ByteBuffer) -> [UInt8] {
        buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? []
    }

    /// Whether a player on another relay may want `sender`'s voice. Whether it hears it is its own
    /// relay's decision, by its own record of who is in range; this one holds back only what is
    /// beyond the range and its margin, so that it never holds back what that relay would forward.
    @inline(__always)
    func wantsRemotely(_ recipient: RelayMember, voiceFrom sender: RelayMember, on channel: ChannelNumber) -> Bool {
        if recipient.muted.contains(sender.mediaID) { return false }
        guard let hearing = recipient.peerHearings.first(where: { $0.channel == channel }) else { return true }
        guard let here = recipient.position, let there = sender.position else { return false }
        return hearing.range.isAudible(distanceSquared: here.distanceSquared(to: there), wasAudible: true)
    }

    func sendVoice(_ envelope: [UInt8], of match: RelayMatch, to peer: RelayPeer) {
        if sendPeer(.voice(envelope), of: match.id, to: peer) { counters.peerVoiceSent &+= 1 }
    }

    /// Sends one authenticated message to `peer`; false when it cannot be (no address to send to).
    @discardableResult
    func sendPeer(_ body: RelayPeerMessage.Body, of match: String, to peer: RelayPeer) -> Bool {
        guard let identity = spans.identity, let key = spans.keys.first, let address = peer.socketAddress else {
            return false
        }
        let message = RelayPeerMessage(
            node: identity.node, address: identity.address, match: match, stamp: spans.stamp(now: gate.latestNow),
            body: body)
        guard let bytes = try? message.sealed(with: key) else { return false }
        actions.append(.datagram(ByteBuffer(bytes: bytes), to: address))
        if case .voice = body {} else { counters.peerStateSent &+= 1 }
        return true
    }

    // MARK: Receiving from the others

    /// A message from another relay of the cluster.
    func peerMessage(_ buffer: ByteBuffer, from source: RelaySource, now: UInt64) {
        guard let identity = spans.identity else { return drop(.malformed, member: nil) }
        let bytes = Self.bytes(of: buffer)
        let message: RelayPeerMessage
        do throws(RelayPeerMessageError) {
            message = try RelayPeerMessage(opening: bytes, keys: spans.keys)
        } catch .unauthenticated {
            return drop(.peerUnauthenticated, member: nil)
        } catch {
            return drop(.malformed, member: nil)
        }
        guard message.node != identity.node else { return drop(.malformed, member: nil) }
        guard case .udp(let address) = source else { return drop(.malformed, member: nil) }
        let peer = spans.peer(message.node, at: message.address, source: address)
        let isLinked = spans.links[message.match]?[peer.node] != nil
        switch message.body {
        case .hello:
            // A relay that now holds part of the match wants this one's players.
            if isLinked {
                describeAll(of: message.match, to: peer)
            } else {
                link(message.match, to: peer.node, at: peer.address, now: now)
            }
        case .members(let described):
            // Nobody here to hear them (yet): the relay describes them again once someone joins.
            guard let held = roster.matches[message.match] else { return }
            if !isLinked { link(message.match, to: peer.node, at: peer.address, now: now) }
            for player in described { describedRemote(player, in: held, by: peer, stamp: message.stamp, now: now) }
        case .gone(let gone):
            guard let held = roster.matches[message.match] else { return }
            for mediaID in gone {
                if let player = held.remoteMember(mediaID: mediaID), player.peer === peer,
                    message.stamp >= player.peerStamp
                {
                    removeRemote(player)
                }
            }
        case .signalling(let names):
            if !isLinked { link(message.match, to: peer.node, at: peer.address, now: now) }
            for name in names { attachedRemotely(name, to: message.match, on: peer, now: now) }
        case .signallingGone(let names):
            for name in names where spans.remoteSignalling[message.match]?[name]?.node == peer.node {
                forgetRemoteSignalling(name, of: message.match)
            }
        case .signal(let from, let to, let payload):
            guard spans.remoteSignalling[message.match]?[from]?.node == peer.node else {
                return drop(.peerUnknown, member: nil)
            }
            deliverSignal(payload, from: from, to: to, in: message.match)
        case .voice(let envelope):
            counters.peerVoiceReceived &+= 1
            guard envelope.count <= configuration.limits.maximumDatagramBytes else {
                return drop(.tooLarge, member: nil)
            }
            let parsed = envelope.withUnsafeBytes { raw -> SealedEnvelopeHeader? in
                do { return try SealedEnvelopeHeader(parsing: raw) } catch { return nil }
            }
            guard let header = parsed else { return drop(.malformed, member: nil) }
            // A player moving from one relay to another is described by both for a moment, and this
            // relay takes the newer's word; the voice the other still forwards is taken as well
            // (the player's client drops a copy it already has), so that nothing is lost meanwhile.
            guard let held = roster.matches[message.match], let sender = held.remoteMember(mediaID: header.sender),
                sender.peer === peer || isLinked
            else { return drop(.peerUnknown, member: nil) }
            fanOut(ByteBuffer(bytes: envelope), header: header, from: sender, reliable: false)
        }
    }

    /// Takes in what `peer` says of one of its players in `match`.
    private func describedRemote(
        _ described: RelayPeerMember, in match: RelayMatch, by peer: RelayPeer, stamp: UInt64, now: UInt64
    ) {
        // A player here keeps its media ID: another relay's word of it is a leftover of a move.
        guard match.member(mediaID: described.mediaID) == nil else { return }
        let player: RelayMember
        if let existing = match.remoteMember(mediaID: described.mediaID), existing.peer === peer {
            guard stamp >= existing.peerStamp else { return }
            player = existing
        } else {
            // A player that moved from one relay to another is the newer relay's.
            if let moved = match.remoteMember(mediaID: described.mediaID) { removeRemote(moved) }
            guard match.remote.count < Self.maximumRemotePlayers else { return drop(.peerUnknown, member: nil) }
            player = RelayMember(
                match: match, participant: described.participant, mediaID: described.mediaID,
                limits: configuration.limits, now: now, peer: peer)
            match.remote.append(player)
        }
        player.peerStamp = stamp
        player.describedAt = now
        player.channels = described.channels.filter { $0 != 0 }
        player.muted = described.muted
        player.peerHearings = described.hearingRanges.sorted { $0.key < $1.key }.map {
            (channel: $0.key, range: HearingRange(range: $0.value))
        }
        if let position = described.position {
            if position != player.position { place(player, at: position) }
        } else if player.position != nil {
            player.position = nil
            forgetHearing(of: player)
        }
    }

    /// Forgets a player of another relay.
    func removeRemote(_ player: RelayMember) {
        player.match.remote.removeAll { $0 === player }
        forgetHearing(of: player)
    }

    // MARK: Housekeeping

    /// At each sweep: describes this relay's players again to every linked relay (a message may
    /// have been lost, and a relay that stops hearing of a player takes it for gone), and forgets
    /// players of other relays not described lately.
    func sweepSpans(now: UInt64) {
        guard spans.identity != nil else { return }
        for (match, links) in spans.links.sorted(by: { $0.key < $1.key })
        where roster.matches[match] != nil || signallingMatches[match] != nil {
            for node in links.keys.sorted() {
                if let peer = spans.peers[node] { describeAll(of: match, to: peer) }
            }
        }
        for (match, attached) in spans.remoteSignalling.sorted(by: { $0.key < $1.key }) {
            for (participant, described) in attached where now &- described.describedAt > Self.peerPlayerTimeout {
                forgetRemoteSignalling(participant, of: match)
            }
        }
        for match in roster.matches.values where !match.remote.isEmpty {
            for player in match.remote where now &- player.describedAt > Self.peerPlayerTimeout {
                logger.info(
                    "forgot a player of another relay: not described lately",
                    metadata: [
                        "match": "\(match.id)", "participant": "\(player.participant)",
                        "node": "\(player.peer?.node ?? "?")",
                    ])
                removeRemote(player)
            }
        }
    }
}
