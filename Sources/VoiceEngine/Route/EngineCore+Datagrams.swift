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
            session.incoming.dispatch(
                content, header: header, from: name, route: route, in: session, core: self, now: now)
            return
        }
        if replayed { counters.replayedDatagrams += 1 } else { counters.unopenedDatagrams += 1 }
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
