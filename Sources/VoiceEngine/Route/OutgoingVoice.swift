import VoiceCore
import VoiceMedia
import VoiceWire

/// A session's outgoing stage: the microphone's frame encoded once for the active channel,
/// sealed, and sent to every peer listening to that channel.
final class OutgoingVoice {
    /// Encodes the microphone for the session's active channel; rebuilt when it changes.
    var pipeline: VoiceSendPipeline?
    /// A captured frame's listeners; grows to the largest session once.
    private var listeners: [RemotePeer] = []

    /// The channel whose voice goes out, with its pipeline, when one does now.
    private func capturing(in session: Session) -> (channel: ChannelNumber, pipeline: VoiceSendPipeline)? {
        guard let channel = session.activeChannel, let pipeline,
            let local = session.channels[channel], session.accepts(local)
        else { return nil }
        return (channel, pipeline)
    }

    /// The microphone lost `frames` frames of time: the pipeline moves its timeline over them, so
    /// that the frames after them are stamped when they were captured.
    func skipLostCapture(frames: Int, in session: Session) {
        capturing(in: session)?.pipeline.skipLostFrames(frames)
    }

    /// Encodes `frame` and sends it to every listener: one envelope for all of them when the
    /// relay makes the copies, else one for the direct and app-carried peers and one per peer
    /// behind the relay.
    func send(_ frame: UnsafeBufferPointer<Float>, now: MediaTime, in session: Session, core: EngineCore) {
        guard let (channel, pipeline) = capturing(in: session) else { return }
        pipeline.isMicrophoneMuted = core.isMicrophoneMuted || session.isServerMuted
        pipeline.pushToTalk = core.pushToTalk
        pipeline.isTalkKeyDown = core.isTalkKeyDown
        let count: Int
        do {
            count = try pipeline.process(frame, at: now, into: core.packet)
        } catch {
            return
        }
        guard count > 0 else { return }
        session.listeners(of: channel, into: &listeners)
        guard !listeners.isEmpty else { return }
        let voice = UnsafeRawBufferPointer(rebasing: core.packet[0..<count])
        // While a departure's new key is not in use yet, a player who left still holds the one
        // sealing now and may still be a member of the channel at the relay: an envelope for
        // everyone would be copied to him, so each listener gets one addressed to it.
        if !session.senderKeys.isChanging, let kind = core.sharedRelayRoute(of: listeners) {
            let envelope = session.senderKeys.seal(
                .voice, channel: channel, destination: SealedEnvelopeHeader.everyone, plaintext: voice,
                into: core.envelope)
            if let envelope { core.sendThroughRelay(envelope, via: kind, in: session) }
            return
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
                envelope = session.senderKeys.seal(
                    .voice, channel: channel, destination: peer.mediaID, plaintext: voice,
                    into: core.addressedEnvelope)
            case .direct, .appCarried:
                // The relay culls by range; on a path without one, the sender does.
                if isPositional, !peer.inRangeChannels.contains(channel) {
                    core.counters.voiceOutOfRange += 1
                    continue
                }
                everyone =
                    everyone
                    ?? session.senderKeys.seal(
                        .voice, channel: channel, destination: SealedEnvelopeHeader.everyone, plaintext: voice,
                        into: core.envelope)
                envelope = everyone
            }
            if let envelope { core.send(envelope, to: peer, route: route, session: session) }
        }
    }

    /// Takes what a listener measured of this participant's stream in the active channel.
    func apply(_ report: ReceiverReport, in session: Session) {
        guard report.channel == session.activeChannel else { return }
        pipeline?.apply(report)
    }
}
