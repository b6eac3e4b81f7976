import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceWire

/// A frame's turn through every session: the microphone's frame out through each outgoing
/// stage, every incoming stage pulled into the mix, reports back to the senders.
extension EngineCore {
    /// Rebuilds the send pipeline of `session` for its active channel.
    func rebuildSendPipeline(_ session: Session) throws(VoiceChatError) {
        guard let channel = session.activeChannel else {
            session.outgoing.pipeline = nil
            return
        }
        let sendConfiguration = configuration.sendConfiguration(
            sender: mediaID, channel: channel, budget: delayBudget, speechProcessing: speechProcessing)
        do throws(CodecError) {
            session.outgoing.pipeline = try VoiceSendPipeline(sendConfiguration)
        } catch {
            throw .codec(error)
        }
    }

    /// The microphone lost `frames` frames of time: every session that sends moves its timeline
    /// over them.
    func skipLostCapture(frames: Int) {
        for session in sessions.values { session.outgoing.skipLostCapture(frames: frames, in: session) }
    }

    /// Removes the speaker's echo from the captured frame, then sends it through every session's
    /// outgoing stage. `queuedSamples`: audio written to the speaker and not played yet, plus audio
    /// captured after this frame and already held.
    func sendCaptured(_ captured: UnsafeBufferPointer<Float>, now: MediaTime, queuedSamples: Int = 0) {
        let frame = echoCanceller?.cancel(captured, queuedSamples: queuedSamples) ?? captured
        if inputMeteringEnabled { inputMeter.process(frame) }
        for session in sessions.values { session.outgoing.send(frame, now: now, in: session, core: self) }
    }

    /// Pulls one frame from every session's streams and mixes them into `output`.
    func mix(into output: UnsafeMutableBufferPointer<Float>, now: MediaTime) {
        var playing = false
        for session in sessions.values {
            let pulled = session.incoming.pull(into: mixer, now: now)
            playing = playing || pulled.playing
            if pulled.speakingChanged { session.speakingChanged(core: self) }
        }
        isPlayingRemoteVoice = playing
        do {
            try mixer.mix(into: output)
        } catch {
            output.update(repeating: 0)
        }
    }

    func sendReports(now: MediaTime) {
        for session in sessions.values { session.incoming.sendReports(now: now, in: session, core: self) }
    }

    /// What a listener measured of this participant's stream.
    func receiveReport(_ bytes: UnsafeRawBufferPointer, in session: Session) {
        guard let report = try? ReceiverReport(parsing: bytes) else {
            counters.malformedDatagrams += 1
            return
        }
        guard report.source == mediaID else { return }
        session.outgoing.apply(report, in: session)
    }

    /// Forgets the streams of `session` that `matching` picks, in the session and in the mixer.
    func removeStreams(in session: Session, where matching: (StreamKey) -> Bool) {
        session.incoming.removeStreams(in: session, mixer: mixer, where: matching)
    }
}
