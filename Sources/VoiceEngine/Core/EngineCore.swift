import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceTransport
import VoiceWire

/// The engine's whole state and logic, without threads, locks or clocks: every input comes in
/// with the time, so the same code runs on the engine thread in a real call and on a virtual
/// clock in simulations and tests. One thread at a time; `VoiceEngine` serialises access.
final class EngineCore {
    let participant: ParticipantID
    let mediaID: MediaID
    let configuration: EngineConfiguration
    let network: (any DatagramNetwork)?

    var sessions: [SessionReference: Session] = [:]
    let mixer: VoiceMixer
    private var nextMixerChannel: MixerChannelID = 1
    var outbox: EngineOutbox
    /// All but `datagramsSent`, which is kept apart.
    var counters = EngineCounters()
    var datagramsSent = SentDatagramCounts()

    // Controls and meters (GameKit's service-wide ones).
    var isMicrophoneMuted = false
    var pushToTalk = false
    var isTalkKeyDown = false
    var remoteParticipantVolume: Float = 1
    var inputMeteringEnabled = false
    var outputMeteringEnabled = false
    var inputMeter = LevelMeter()
    /// The microphone's and the mix's levels in dBFS while their metering is enabled, else -∞.
    var inputLevelDBFS: Float { inputMeteringEnabled ? inputMeter.rmsDBFS : -.infinity }
    var outputLevelDBFS: Float { outputMeteringEnabled ? mixer.outputMeter.rmsDBFS : -.infinity }
    /// Whether the last mix played any remote voice: a stream had started playout.
    var isPlayingRemoteVoice = false
    /// The delay budget in force: the configuration's until the app changes it.
    var delayBudget: DelayBudget
    /// Noise suppression, gain control and the gate's threshold: the configuration's until the
    /// app changes them.
    var speechProcessing: SpeechProcessing
    /// Removes the speaker's echo from every captured frame before anything else sees it; nil
    /// when off. Its reference is fed by whoever writes the mix to the speaker (`played`).
    let echoCanceller: CaptureEchoCanceller?

    // Working buffers, allocated once.
    let packet: UnsafeMutableRawBufferPointer
    let envelope: UnsafeMutableRawBufferPointer
    /// A second envelope, for one peer, while `envelope` holds the one for everyone.
    let addressedEnvelope: UnsafeMutableRawBufferPointer
    let plaintext: UnsafeMutableRawBufferPointer
    /// A stereo mix averaged down for the echo canceller (empty for a mono one).
    let playedMono: UnsafeMutableBufferPointer<Float>
    static let datagramCapacity = 1500
    /// A session's peer names while its paths tick; grows to the largest session once.
    var peerNames: [ParticipantID] = []
    /// What a peer's paths asked for in a tick, and in answer to a probe: kept from turn to turn.
    var tickActions: [PathAction] = []
    var probeActions: [PathAction] = []

    init(
        participant: ParticipantID, configuration: EngineConfiguration, network: (any DatagramNetwork)?,
        outbox: EngineOutbox, cancelsEcho: Bool = false, outputChannels: Int = 1
    ) throws(VoiceChatError) {
        self.participant = participant
        self.mediaID = participant.mediaID
        self.configuration = configuration
        self.network = network
        self.outbox = outbox
        delayBudget = configuration.delayBudget
        try Self.checkDelayBudget(delayBudget)
        speechProcessing = configuration.speechProcessing
        do throws(CodecError) {
            try speechProcessing.validate(operation: "EngineConfiguration.speechProcessing")
        } catch {
            throw .invalidSetting(error)
        }
        do throws(MixerError) {
            mixer = try VoiceMixer(frameDuration: configuration.frameDuration, outputChannels: outputChannels)
        } catch {
            throw .mixer(error)
        }
        do throws(CodecError) {
            echoCanceller =
                cancelsEcho ? try CaptureEchoCanceller(frameSamples: configuration.frameDuration.engineFrames) : nil
        } catch {
            throw .codec(error)
        }
        packet = .allocate(byteCount: Self.datagramCapacity, alignment: 8)
        envelope = .allocate(byteCount: Self.datagramCapacity, alignment: 8)
        addressedEnvelope = .allocate(byteCount: Self.datagramCapacity, alignment: 8)
        plaintext = .allocate(byteCount: Self.datagramCapacity, alignment: 8)
        playedMono = .allocate(capacity: outputChannels > 1 ? configuration.frameDuration.engineFrames : 0)
    }

    deinit {
        packet.deallocate()
        envelope.deallocate()
        addressedEnvelope.deallocate()
        plaintext.deallocate()
        playedMono.deallocate()
    }

    /// Hands what the speaker was given (the mix, interleaved as the mixer writes it) to the echo
    /// canceller, which takes mono: a stereo mix is averaged down first.
    func speakerPlayed(_ samples: UnsafeBufferPointer<Float>) {
        guard let echoCanceller else { return }
        let channels = mixer.outputChannels
        guard channels > 1 else { return echoCanceller.played(samples) }
        var offset = 0
        while offset < samples.count {
            let frames = min((samples.count - offset) / channels, playedMono.count)
            guard frames > 0 else { return }
            for frame in 0..<frames {
                let base = offset + frame * channels
                playedMono[frame] = (samples[base] + samples[base + 1]) * 0.5
            }
            echoCanceller.played(UnsafeBufferPointer(rebasing: playedMono[0..<frames]))
            offset += frames * channels
        }
    }

    func allocateMixerChannel(name: String) throws(VoiceChatError) -> MixerChannelID {
        let id = nextMixerChannel
        nextMixerChannel = nextMixerChannel.next
        do throws(MixerError) {
            try mixer.addChannel(id, name: name)
        } catch {
            throw .mixer(error)
        }
        return id
    }

    // MARK: Time

    /// Advances everything by one frame: sends the captured frame (if any), mixes what every
    /// stream has for `output`, and runs paths, timeouts and key switches. `speakerQueuedSamples`
    /// is what waits to be played, for the echo canceller to find what played as `captured` was.
    func tick(
        now: MediaTime, captured: UnsafeBufferPointer<Float>?, speakerQueuedSamples: Int = 0,
        output: UnsafeMutableBufferPointer<Float>
    ) {
        for session in sessions.values {
            tickPaths(session, now: now)
            session.tick(now: now, core: self)
            tickKeys(session, now: now)
        }
        if let captured {
            sendCaptured(captured, now: now, queuedSamples: speakerQueuedSamples)
        }
        mix(into: output, now: now)
        sendReports(now: now)
    }

    // MARK: Sending datagrams

    func send(_ bytes: UnsafeRawBufferPointer, to peer: RemotePeer, route: PathRoute, session: Session) {
        let destination: DatagramDestination
        switch route {
        case .direct(let address):
            destination = .direct(address)
        case .appCarried:
            destination = .appCarried(peer.participant, client: session.client)
        case .relayUDP, .relayTCP:
            // Counted there, as a single envelope for a whole channel is.
            sendThroughRelay(bytes, via: route.kind, in: session)
            return
        }
        queue(bytes, to: destination)
        datagramsSent.count(route.kind)
    }

    /// Queues a datagram for the courier; one its full queue refuses is counted as lost.
    func queue(_ bytes: UnsafeRawBufferPointer, to destination: DatagramDestination) {
        if !outbox.send(bytes, to: destination) { counters.datagramsDroppedSending += 1 }
    }

    func sendSignalling(_ message: SignallingMessage, to participant: ParticipantID, in session: Session) {
        outbox.append(.signalling(message, to: participant, client: session.client))
    }

    // MARK: Events

    func emit(_ event: VoiceChatEvent, in call: CallSession) {
        outbox.append(.callEvent(event, call.events))
    }

    func emit(_ event: MatchEvent, in match: MatchSession) {
        outbox.append(.matchEvent(event, match.events))
    }

    func removeSession(_ session: Session) {
        removeStreams(in: session) { _ in true }
        for channel in session.channels.values { mixer.removeChannel(channel.mixerChannel) }
        sessions[session.reference] = nil
    }
}
