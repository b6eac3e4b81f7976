import VoiceCore
import VoiceMedia
import VoiceTransport
import VoiceWire

/// The channel number of a 1:1 call's voice.
let callChannel: ChannelNumber = 1

/// A 1:1 call: one peer, one channel that carries voice once the call is up, and a life cycle
/// (invited, inviting, connecting, active) whose events go to the service.
final class CallSession: Session {
    let events: EventSink<VoiceChatEvent>
    var phase: CallPhase
    /// The caller's offer, kept until the app answers the invitation.
    var pendingOffer: SessionOffer?
    /// Whether the call ever got to `.active`, to tell "stopped" from "did not start".
    var hasStarted = false

    init(
        id: CallID, sender: MediaID, with other: RemotePeer, phase: CallPhase, client: any VoiceChatClient,
        events: EventSink<VoiceChatEvent>, keys: SessionKeyPair
    ) {
        self.events = events
        self.phase = phase
        super.init(reference: .call(id), sender: sender, client: client, keys: keys)
        peers[other.participant] = other
    }

    /// The other participant.
    var other: ParticipantID? { peers.keys.first }

    /// The peer hears the call's one channel.
    override func hears(_ peer: RemotePeer, channel: ChannelNumber) -> Bool { true }

    /// A call's channel is started from the moment it exists; voice flows once the call is up.
    override func accepts(_ channel: LocalChannel) -> Bool { phase == .active }

    /// Ends a call that waited too long for an answer or a path.
    override func tick(now: MediaTime, core: EngineCore) {
        guard let other else { return }
        let reason: CallEndReason
        switch phase {
        case .inviting(let deadline) where now >= deadline: reason = .timedOut
        case .connecting(let deadline) where now >= deadline && peers[other]?.activeRoute == nil:
            reason = .noRealTimePath
        default: return
        }
        core.sendSignalling(.end(call: identifier, reason: reason), to: other, in: self)
        ended(by: other, reason: reason, core: core)
    }

    /// The first route up starts the call; later ones are path changes.
    override func routeChanged(from: PathRoute?, to: PathRoute?, peer name: ParticipantID, core: EngineCore) {
        if case .connecting = phase, let to {
            phase = .active
            hasStarted = true
            core.emit(.started(call: identifier, with: name, path: to.kind), in: self)
        } else if phase == .active {
            core.emit(.pathChanged(call: identifier, with: name, path: to?.kind), in: self)
        }
    }

    /// The other side gone ends the call.
    override func peerGone(_ name: ParticipantID, core: EngineCore) {
        ended(by: name, reason: hasStarted ? .connectionLost : .noRealTimePath, core: core)
    }

    /// Tells the service the call ended for `reason` (it stopped, or it never started), and
    /// forgets it.
    func ended(by name: ParticipantID, reason: CallEndReason, core: EngineCore) {
        if hasStarted {
            core.emit(.stopped(call: identifier, with: name, reason: reason), in: self)
        } else {
            core.emit(.didNotStart(call: identifier, with: name, reason: reason), in: self)
        }
        core.removeSession(self)
    }

    override func remoteParticipantVolumeChanged(_ volume: Float, mixer: VoiceMixer) {
        if let channel = channels[callChannel] { try? mixer.setVolume(volume, channel: channel.mixerChannel) }
    }
}
