import VoiceCore
import VoiceTransport
import VoiceWire

extension EngineCore {
    /// Opens and dispatches one datagram that arrived on `route`. Anything that is not a sealed
    /// envelope from a known peer under a current key is dropped and counted.
    func receiveDatagram(_ raw: UnsafeRawBufferPointer, route: PathRoute, now: MediaTime) {
        let header: SealedEnvelopeHeader
        do {
            header = try SealedEnvelopeHeader(parsing: raw)
        } catch {
            counters.malformedDatagrams += 1
            return
        }
        guard header.destination == SealedEnvelopeHeader.everyone || header.destination == mediaID
        else {
            counters.malformedDatagrams += 1
            return
        }
        let sender = header.sender
        var replayed = false
        for session in sessions.values {
            guard let name = session.peer(for: sender) else { continue }
            let plaintextBytes: Int
            do throws(SecurityError) {
                plaintextBytes = try session.incoming.opener.open(raw, header: header, into: plaintext)
            } catch {
                if error.isReplay { replayed = true }
                continue
            }
            let content = UnsafeRawBufferPointer(rebasing: plaintext[0..<plaintextBytes])
            dispatch(content, header: header, from: name, route: route, in: session, now: now)
            return
        }
        if replayed { counters.replayedDatagrams += 1 } else { counters.unopenedDatagrams += 1 }
    }

    private func dispatch(
        _ content: UnsafeRawBufferPointer, header: SealedEnvelopeHeader, from name: ParticipantID, route: PathRoute,
        in session: Session, now: MediaTime
    ) {
        guard let peer = session.peers[name], !peer.isGone else { return }
        // With the relay as the primary path this participant's address stays hidden: nothing
        // answers on a direct route, not even a probe from a peer that learnt it elsewhere.
        if case .direct = route, session.relay?.isPrimary == true { return }
        peer.paths?.receivedTraffic(on: route, now: now)
        switch header.content {
        case .voice:
            session.incoming.receiveVoice(content, header: header, from: name, in: session, core: self, now: now)
        case .receiverReport:
            receiveReport(content, in: session)
        case .probe, .probeReply:
            guard let probe = try? ConnectivityProbe(parsing: content) else {
                counters.malformedDatagrams += 1
                return
            }
            if header.content == .probe {
                probeActions.removeAll(keepingCapacity: true)
                peer.paths?.receivedProbe(probe, on: route, now: now, into: &probeActions)
                perform(probeActions, peer: name, in: session, now: now)
            } else {
                peer.paths?.receivedProbeReply(probe, on: route, now: now)
            }
        case .gameData:
            session.receivedGameData(content, from: name, core: self)
        }
    }
}

extension SecurityError {
    /// A copy of something already opened, or older than the replay window reaches.
    var isReplay: Bool {
        switch self {
        case .replayed, .tooOld: true
        default: false
        }
    }
}
