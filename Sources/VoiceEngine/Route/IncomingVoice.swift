import VoiceCore
import VoiceMedia
import VoiceTransport
import VoiceWire

/// A session's incoming stage: an envelope opened under its sender's key, its voice put in the
/// stream of that sender and channel, and every stream pulled into the mixer once a frame.
final class IncomingVoice {
    /// Opens what the session's peers seal, under the keys they sent.
    var opener = EnvelopeOpener()
    var streams: [StreamKey: ReceivingStream] = [:]
    /// What the streams that ended (a channel stopped, a player left) had received, until a new
    /// stream takes their place: the statistics keep reporting what was heard.
    var endedStreams: [StreamKey: ReceiveStatistics] = [:]

    /// Hands an opened envelope to what it is for: voice to its stream, a report to the outgoing
    /// stage, a probe to the peer's paths, game data to the app. Any of them is traffic on `route`.
    func dispatch(
        _ content: UnsafeRawBufferPointer, header: SealedEnvelopeHeader, from name: ParticipantID, route: PathRoute,
        in session: Session, core: EngineCore, now: MediaTime
    ) {
        guard let peer = session.peers[name], !peer.isGone else { return }
        // With the relay as the primary path this participant's address stays hidden: nothing
        // answers on a direct route, not even a probe from a peer that learnt it elsewhere.
        if case .direct = route, session.relay?.isPrimary == true { return }
        peer.paths?.receivedTraffic(on: route, now: now)
        switch header.content {
        case .voice:
            receiveVoice(content, header: header, from: name, in: session, core: core, now: now)
        case .receiverReport:
            core.receiveReport(content, in: session)
        case .probe, .probeReply:
            guard let probe = try? ConnectivityProbe(parsing: content) else {
                core.counters.malformedDatagrams += 1
                return
            }
            if header.content == .probe {
                core.probeActions.removeAll(keepingCapacity: true)
                peer.paths?.receivedProbe(probe, on: route, now: now, into: &core.probeActions)
                core.perform(core.probeActions, peer: name, in: session, now: now)
            } else {
                peer.paths?.receivedProbeReply(probe, on: route, now: now)
            }
        case .gameData:
            session.receivedGameData(content, from: name, core: core)
        }
    }

    /// Hands an opened voice packet to its stream, creating the stream on its first packet.
    func receiveVoice(
        _ bytes: UnsafeRawBufferPointer, header: SealedEnvelopeHeader, from name: ParticipantID, in session: Session,
        core: EngineCore, now: MediaTime
    ) {
        guard let channel = session.channels[header.channel], session.accepts(channel) else {
            core.counters.voiceForStoppedChannels += 1
            return
        }
        let view: VoicePacketView
        do {
            view = try VoicePacketView(parsing: bytes)
        } catch {
            core.counters.malformedDatagrams += 1
            return
        }
        guard view.sender == header.sender, view.channel == header.channel else {
            core.counters.malformedDatagrams += 1
            return
        }
        let key = StreamKey(sender: header.sender, channel: header.channel)
        let stream: VoiceReceiveStream
        if let receiving = streams[key] {
            stream = receiving.stream
        } else {
            do {
                stream = try VoiceReceiveStream(
                    sender: header.sender, channel: header.channel, configuration: core.receiveConfiguration)
                try core.mixer.addStream(sender: header.sender, channel: channel.mixerChannel)
            } catch {
                return
            }
            if let peer = session.peers[name] { session.streamStarting(from: peer, on: channel, core: core) }
            endedStreams[key] = nil
            streams[key] = ReceivingStream(
                stream: stream, participant: name, mixerChannel: channel.mixerChannel,
                reports: ReportSchedule(
                    interval: MediaTime.milliseconds(core.configuration.reportIntervalMilliseconds), start: now))
        }
        stream.insert(view, bytes: bytes, arrival: now)
    }

    /// Forgets the streams `matching` picks, here and in the mixer, keeping what they received.
    func removeStreams(in session: Session, mixer: VoiceMixer, where matching: (StreamKey) -> Bool) {
        for key in streams.keys where matching(key) {
            if let channel = session.channels[key.channel] {
                mixer.removeStream(sender: key.sender, channel: channel.mixerChannel)
            }
            endedStreams[key] = streams[key]?.stream.statistics
            streams[key] = nil
        }
    }

    /// Pulls one frame from every stream that is heard into the mixer (skipping the rest without
    /// decoding). Returns whether any stream plays, and whether any started or stopped speaking.
    func pull(into mixer: VoiceMixer, now: MediaTime) -> (playing: Bool, speakingChanged: Bool) {
        var playing = false
        var speakingChanged = false
        for (key, receiving) in streams {
            let stream = receiving.stream
            let heard = mixer.fill(sender: key.sender, channel: receiving.mixerChannel) { frame in
                stream.pullFrame(into: frame, at: now)
            }
            if !heard { stream.skipFrame(at: now) }
            playing = playing || stream.isPlaying
            if stream.isSpeaking != receiving.wasSpeaking {
                receiving.wasSpeaking = stream.isSpeaking
                speakingChanged = true
            }
        }
        return (playing, speakingChanged)
    }

    /// Tells each sender, once per report interval and early after loss its protection could not
    /// repair, what this participant measured of its stream.
    func sendReports(now: MediaTime, in session: Session, core: EngineCore) {
        for (key, receiving) in streams {
            guard receiving.reports.isDue(at: now, unrepairableLoss: receiving.stream.hasUnrepairableLoss)
            else { continue }
            receiving.reports.reported(at: now)
            guard let peer = session.peers[receiving.participant], let route = peer.activeRoute else { continue }
            let report = receiving.stream.makeReport(reporter: core.mediaID)
            guard let count = try? report.write(into: core.plaintext) else { continue }
            let envelope = session.senderKeys.seal(
                .receiverReport, channel: .session, destination: key.sender,
                plaintext: UnsafeRawBufferPointer(rebasing: core.plaintext[0..<count]), into: core.envelope)
            if let envelope { core.send(envelope, to: peer, route: route, session: session) }
        }
    }

    /// Whether `sender`'s stream in `channel` is speaking now.
    func isSpeaking(_ sender: MediaID, channel: ChannelNumber) -> Bool {
        streams[StreamKey(sender: sender, channel: channel)]?.stream.isSpeaking == true
    }
}
