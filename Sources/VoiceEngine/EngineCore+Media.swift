import VoiceCore
import VoiceMedia
import VoiceWire

extension EngineCore {
    /// Rebuilds the send pipeline of `session` for its active channel.
    func rebuildSendPipeline(_ session: Session) throws(VoiceChatError) {
        guard let channel = session.activeChannel else {
            session.sendPipeline = nil
            return
        }
        var sendConfiguration = SendConfiguration(
            sender: mediaID.rawValue, channel: channel, frameDuration: configuration.frameDuration,
            bitrate: configuration.bitrate, complexity: configuration.complexity, delayBudget: delayBudget)
        sendConfiguration.speechProcessing = speechProcessing
        do {
            session.sendPipeline = try VoiceSendPipeline(sendConfiguration)
        } catch {
            throw .media(error.description)
        }
    }

    /// The microphone lost `frames` frames of time: every pipeline that takes captured frames
    /// moves its timeline over them, so that the frames after them are stamped when they were
    /// captured.
    func skipLostCapture(frames: Int) {
        for session in sessions.values {
            capturing(session)?.pipeline.skipLostFrames(frames)
        }
    }

    /// The channel and send pipeline that take the microphone's frames in `session`, if any: an
    /// active call's, or a match's started active channel.
    private func capturing(_ session: Session) -> (channel: UInt16, pipeline: VoiceSendPipeline)? {
        guard let channel = session.activeChannel, let pipeline = session.sendPipeline,
            let local = session.channels[channel], session.accepts(local)
        else { return nil }
        return (channel, pipeline)
    }

    /// Removes the speaker's echo from the captured frame, then encodes it once per session that
    /// sends and sends it to every peer listening to that channel: one envelope for all of them
    /// when the relay makes the copies, else one for the direct and app-carried peers and one per
    /// peer behind the relay. `queuedSamples`: audio written to the speaker and not played yet,
    /// plus audio captured after this frame and already held.
    func sendCaptured(_ captured: UnsafeBufferPointer<Float>, now: MediaTime, queuedSamples: Int = 0) {
        let frame = echoCanceller?.cancel(captured, queuedSamples: queuedSamples) ?? captured
        if inputMeteringEnabled { inputMeter.process(frame) }
        for session in sessions.values {
            guard let (channel, pipeline) = capturing(session) else { continue }
            pipeline.isMicrophoneMuted = isMicrophoneMuted || session.isServerMuted
            pipeline.pushToTalk = pushToTalk
            pipeline.isTalkKeyDown = isTalkKeyDown
            let count: Int
            do {
                count = try pipeline.process(frame, at: now, into: packet)
            } catch {
                continue
            }
            guard count > 0 else { continue }
            session.listeners(of: channel, into: &listeners)
            guard !listeners.isEmpty else { continue }
            let voice = UnsafeRawBufferPointer(rebasing: packet[0..<count])
            // While a departure's new key is not in use yet, a player who left still holds the
            // one sealing now and may still be a member of the channel at the relay: an envelope
            // for everyone would be copied to him, so each listener gets one addressed to it.
            if !session.isChangingKeys, let kind = sharedRelayRoute(of: listeners) {
                let envelope = seal(
                    .voice, channel: channel, destination: SealedEnvelopeHeader.everyone, plaintext: voice,
                    in: session)
                guard let envelope else { continue }
                sendThroughRelay(envelope, via: kind, in: session)
                continue
            }
            // Direct and app-carried peers share one envelope; the relay forwards by the clear
            // header, so each peer behind it gets one addressed to it.
            var everyone: UnsafeRawBufferPointer?
            let isPositional = session.channels[channel]?.proximity != nil
            for peer in listeners {
                guard let route = peer.activeRoute else { continue }
                let envelope: UnsafeRawBufferPointer?
                switch route.kind {
                case .relayUDP, .relayTCP:
                    envelope = seal(
                        .voice, channel: channel, destination: peer.mediaID.rawValue, plaintext: voice, in: session,
                        into: addressedEnvelope)
                case .direct, .appCarried:
                    // The relay culls by range; on a path without one, the sender does.
                    if isPositional, !peer.inRangeChannels.contains(channel) {
                        counters.voiceOutOfRange += 1
                        continue
                    }
                    everyone =
                        everyone
                        ?? seal(
                            .voice, channel: channel, destination: SealedEnvelopeHeader.everyone, plaintext: voice,
                            in: session)
                    envelope = everyone
                }
                if let envelope { send(envelope, to: peer, route: route, session: session) }
            }
        }
    }

    /// Hands an opened voice packet to its stream, creating the stream on its first packet.
    func receiveVoice(
        _ bytes: UnsafeRawBufferPointer, header: SealedEnvelopeHeader, from name: ParticipantID, in session: Session,
        now: MediaTime
    ) {
        guard let channel = session.channels[header.channel], session.accepts(channel) else {
            counters.voiceForStoppedChannels += 1
            return
        }
        let view: VoicePacketView
        do {
            view = try VoicePacketView(parsing: bytes)
        } catch {
            counters.malformedDatagrams += 1
            return
        }
        guard view.sender == header.sender, view.channel == header.channel else {
            counters.malformedDatagrams += 1
            return
        }
        let key = StreamKey(sender: MediaID(rawValue: header.sender), channel: header.channel)
        let stream: VoiceReceiveStream
        if let receiving = session.streams[key] {
            stream = receiving.stream
        } else {
            do {
                stream = try VoiceReceiveStream(
                    sender: header.sender, channel: header.channel, configuration: receiveConfiguration)
                try mixer.addStream(sender: header.sender, channel: channel.mixerChannel)
            } catch {
                return
            }
            if channel.proximity != nil, let peer = session.peers[name] {
                updateProximity(of: peer, on: channel, in: session)
            }
            session.endedStreams[key] = nil
            session.streams[key] = ReceivingStream(
                stream: stream, participant: name, mixerChannel: channel.mixerChannel,
                reports: ReportSchedule(
                    interval: MediaTime.milliseconds(configuration.reportIntervalMilliseconds), start: now))
        }
        stream.insert(view, bytes: bytes, arrival: now)
    }

    /// Forgets the streams of `session` that `matching` picks, in the session and in the mixer.
    func removeStreams(in session: Session, where matching: (StreamKey) -> Bool) {
        for key in session.streams.keys where matching(key) {
            if let channel = session.channels[key.channel] {
                mixer.removeStream(sender: key.sender.rawValue, channel: channel.mixerChannel)
            }
            session.endedStreams[key] = session.streams[key]?.stream.statistics
            session.streams[key] = nil
        }
    }

    /// Pulls one frame from every stream that is heard (skipping the rest without decoding) and
    /// mixes them into `output`.
    func mix(into output: UnsafeMutableBufferPointer<Float>, now: MediaTime) {
        var playing = false
        defer { isPlayingRemoteVoice = playing }
        for session in sessions.values {
            var speakingChanged = false
            for (key, receiving) in session.streams {
                let stream = receiving.stream
                let heard = mixer.fill(sender: key.sender.rawValue, channel: receiving.mixerChannel) { frame in
                    stream.pullFrame(into: frame, at: now)
                }
                if !heard { stream.skipFrame(at: now) }
                playing = playing || stream.isPlaying
                if stream.isSpeaking != receiving.wasSpeaking {
                    receiving.wasSpeaking = stream.isSpeaking
                    speakingChanged = true
                }
            }
            if speakingChanged && !session.isCall { updatePlayerStates(session) }
        }
        do {
            try mixer.mix(into: output)
        } catch {
            output.update(repeating: 0)
        }
    }

    /// Tells each sender, once per report interval and early after loss its protection could not
    /// repair, what this participant measured of its stream.
    func sendReports(now: MediaTime) {
        for session in sessions.values {
            for (key, receiving) in session.streams {
                guard receiving.reports.isDue(at: now, unrepairableLoss: receiving.stream.hasUnrepairableLoss)
                else { continue }
                receiving.reports.reported(at: now)
                guard let peer = session.peers[receiving.participant], let route = peer.activeRoute else { continue }
                let report = receiving.stream.makeReport(reporter: mediaID.rawValue)
                guard let count = try? report.write(into: plaintext) else { continue }
                let envelope = seal(
                    .receiverReport, channel: 0, destination: key.sender.rawValue,
                    plaintext: UnsafeRawBufferPointer(rebasing: plaintext[0..<count]), in: session)
                if let envelope { send(envelope, to: peer, route: route, session: session) }
            }
        }
    }

    func receiveReport(_ bytes: UnsafeRawBufferPointer, in session: Session) {
        guard let report = try? ReceiverReport(parsing: bytes) else {
            counters.malformedDatagrams += 1
            return
        }
        guard report.source == mediaID.rawValue, report.channel == session.activeChannel else { return }
        session.sendPipeline?.apply(report)
    }

    /// Reports every player's state in every channel of a match that changed since last time.
    func updatePlayerStates(_ session: Session) {
        guard !session.isCall else { return }
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

    private func playerState(_ peer: RemotePeer, channel: LocalChannel, in session: Session) -> PlayerState {
        if peer.isGone { return .disconnected }
        guard peer.activeRoute != nil else { return .connecting }
        let previous = session.reportedStates[PlayerStateKey(channel: channel.number, player: peer.participant)]
        // The path comes up from the player's hello, which lists the channels it has started: a
        // reachable player whose list lacks this one is not in it, whether it left or never came.
        guard peer.startedChannels.contains(channel.number) else { return .disconnected }
        if session.streams[StreamKey(sender: peer.mediaID, channel: channel.number)]?.stream.isSpeaking == true {
            return .speaking
        }
        // Once a player has spoken in the channel, a quiet stream is "silent", not just "connected".
        return previous == .speaking || previous == .silent ? .silent : .connected
    }
}
