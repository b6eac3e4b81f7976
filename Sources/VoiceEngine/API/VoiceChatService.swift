import Synchronization
import VoiceCore
import VoiceTransport
import VoiceWire

/// 1:1 voice calls between participant IDs (GameKit's `GKVoiceChatService`).
///
/// The app's `client` carries the signalling; the app hands what arrives for the service back
/// through `received(_:from:)` and, if it offers a real-time channel, `receivedRealTime(_:from:)`.
/// Every method may be called from any thread.
public final class VoiceChatService: Sendable {
    public let engine: VoiceEngine
    public let client: any VoiceChatClient
    /// Invitations, starts, failures, stops and path changes, in order. Holds the newest 4096 not
    /// yet read: an app that takes events through `onEvent` alone need not drain it.
    public let events: AsyncStream<VoiceChatEvent>
    private let sink: EventSink<VoiceChatEvent>

    /// - Parameter onEvent: called with every event as well, right after it happens, on the
    ///   thread that caused it or the engine's courier (never on the engine thread, never under the
    ///   engine's lock, never on an audio thread).
    public init(
        engine: VoiceEngine, client: any VoiceChatClient, onEvent: (@Sendable (VoiceChatEvent) -> Void)? = nil
    ) {
        self.engine = engine
        self.client = client
        let (events, sink) = EventSink<VoiceChatEvent>.makeStream(handler: onEvent)
        self.events = events
        self.sink = sink
    }

    deinit { sink.continuation.finish() }

    // MARK: From the app's client

    /// Signalling that the app received for this service.
    public func received(_ data: [UInt8], from participant: ParticipantID) {
        engine.receiveSignalling(data, from: participant, client: client, events: .call(sink))
    }

    /// Real-time data that the app received on its own channel (the app-carried path).
    public func receivedRealTime(_ data: [UInt8], from participant: ParticipantID) {
        engine.receiveDatagram(data, route: .appCarried)
    }

    // MARK: Calls

    /// Invites `participant`; `events` later says whether the call started. Returns the call ID.
    @discardableResult
    public func startVoiceChat(with participant: ParticipantID) throws(VoiceChatError) -> CallID {
        let now = engine.now
        var random = SystemRandomNumberGenerator()
        let keys = SessionKeyPair()
        return try engine.withCore { core throws(VoiceChatError) in
            try core.startCall(
                with: participant, client: client, events: sink, keys: keys, now: now, random: &random)
        }
    }

    public func accept(_ call: CallID) throws(VoiceChatError) {
        let now = engine.now
        let agreed = engine.withCore { $0.pairwiseKeyInputs(forAccepting: call) }.map {
            PairwiseKeyAgreement($0.0, inputs: $0.1)
        }
        try engine.withCore { core throws(VoiceChatError) in try core.acceptCall(call, agreed: agreed, now: now) }
    }

    public func deny(_ call: CallID) throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in try core.denyCall(call) }
    }

    /// Ends the call with `participant`, or withdraws the invitation.
    public func stopVoiceChat(with participant: ParticipantID) throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in try core.stopCall(with: participant) }
    }

    // MARK: Controls and meters (engine-wide, as GameKit's are service-wide)

    public var isMicrophoneMuted: Bool {
        get { engine.withCore { $0.isMicrophoneMuted } }
        set { engine.withCore { $0.isMicrophoneMuted = newValue } }
    }

    /// When on, the microphone sends only while `isTalkKeyDown`.
    public var pushToTalk: Bool {
        get { engine.withCore { $0.pushToTalk } }
        set { engine.withCore { $0.pushToTalk = newValue } }
    }

    public var isTalkKeyDown: Bool {
        get { engine.withCore { $0.isTalkKeyDown } }
        set { engine.withCore { $0.isTalkKeyDown = newValue } }
    }

    /// Volume of every remote participant of every call, 0…1.
    public var remoteParticipantVolume: Float { engine.withCore { $0.remoteParticipantVolume } }

    public func setRemoteParticipantVolume(_ volume: Float) throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in try core.setRemoteParticipantVolume(volume) }
    }

    /// One player's own volume in every call and match they speak in, 0…2: 1 as they sent it, 0
    /// silences them without muting them (a chat app's per-user volume). It multiplies the volume
    /// of the call or channel, and holds for streams they start later.
    public func setVolume(_ volume: Float, of player: ParticipantID) throws(VoiceChatError) {
        try engine.withCore { core throws(VoiceChatError) in try core.setVolume(volume, of: player) }
    }

    /// A player's own volume (1 unless set).
    public func volume(of player: ParticipantID) -> Float { engine.withCore { $0.volume(of: player) } }

    public var isInputMeteringEnabled: Bool {
        get { engine.withCore { $0.inputMeteringEnabled } }
        set { engine.withCore { $0.inputMeteringEnabled = newValue } }
    }

    public var isOutputMeteringEnabled: Bool {
        get { engine.withCore { $0.outputMeteringEnabled } }
        set { engine.withCore { $0.outputMeteringEnabled = newValue } }
    }

    /// The microphone's level in dBFS (RMS with meter ballistics) while input metering is enabled.
    public var inputMeterLevel: Float { engine.withCore { $0.inputLevelDBFS } }

    /// The mix's level in dBFS while output metering is enabled.
    public var outputMeterLevel: Float { engine.withCore { $0.outputLevelDBFS } }

    /// Both levels in one turn of the engine: the microphone's and the mix's, as above.
    public var meterLevels: (input: Float, output: Float) {
        engine.withCore { core in (core.inputLevelDBFS, core.outputLevelDBFS) }
    }

    /// The path voice to `participant` takes now, if a call with them is up.
    public func path(to participant: ParticipantID) -> RealTimePathKind? {
        engine.withCore { core in core.callSession(with: participant)?.peers[participant]?.activeRoute?.kind }
    }
}
