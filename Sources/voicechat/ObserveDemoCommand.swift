import ArgumentParser
import Dispatch
import Synchronization
import VoiceControl
import VoiceCore
import VoiceDevices
import VoiceEngine

#if canImport(Glibc)
    import Glibc
#endif

/// A session with itself, to try the console, the control socket and the stats file without a
/// second host: engines in this process, one of which speaks a WAV file, connected through an
/// in-process app channel. Hidden: it is a tool for trying and testing the observers.
struct ObserveDemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "observe-demo",
        abstract: "Run an in-process call or match in real time with the observers attached.",
        discussion: """
            Examples:
              voicechat observe-demo --input Fixtures/speech-male.wav --control /tmp/voice.sock
              voicechat observe-demo --input Fixtures/speech-female.wav --match --stats-json stats.jsonl
            """,
        shouldDisplay: false
    )

    @Option(help: ArgumentHelp("WAV file the other participant speaks.", valueName: "file.wav"))
    var input: String

    @Flag(help: "A three-player match with channels \"team\" and \"all\" instead of a 1:1 call.")
    var match = false

    @Option(help: "Stop after this many seconds (default: on Ctrl-C or q).")
    var duration: Double?

    @OptionGroup var observation: ObservationOptions

    func validate() throws {
        if let duration, duration <= 0 {
            throw ValidationError("--duration must be a positive number of seconds, not \(duration).")
        }
    }

    func run() throws {
        InterruptSignal.install()
        let switchboard = InProcessSwitchboard()
        let voice: any AudioInput
        do {
            voice = try WAVFileInput(path: input, channels: 1, pacing: .realTime)
        } catch {
            throw CommandFailure(error.description)
        }
        var engines: [VoiceEngine] = []
        defer { for engine in engines { engine.shutDown() } }
        do {
            let me = try VoiceEngine(participant: "me")
            let speaker = try VoiceEngine(participant: "speaker", input: voice)
            engines = [me, speaker]
            let control: any VoiceSessionControl
            if match {
                let listener = try VoiceEngine(participant: "listener")
                engines.append(listener)
                control = try Self.startMatch(engines, switchboard: switchboard)
            } else {
                control = try Self.startCall(me, speaker, switchboard: switchboard)
            }
            for engine in engines { try engine.start() }
            try Self.blocking { () async throws(CommandFailure) in
                let observers = try await SessionObservers.start(observation, control: control)
                await Self.waitForEnd(duration: duration)
                await observers.stop()
            }
        } catch let error as VoiceChatError {
            throw CommandFailure(error.description)
        }
    }

    private static func startCall(_ me: VoiceEngine, _ speaker: VoiceEngine, switchboard: InProcessSwitchboard)
        throws(VoiceChatError) -> any VoiceSessionControl
    {
        let mine = VoiceChatService(engine: me, client: switchboard.client(for: me.participant))
        let theirs = VoiceChatService(engine: speaker, client: switchboard.client(for: speaker.participant))
        // The speaker answers every invitation.
        Task {
            for await event in theirs.events {
                if case .invitation(let call, _) = event { try? theirs.accept(call) }
            }
        }
        for service in [mine, theirs] {
            switchboard.connect(
                service.engine.participant,
                .init(
                    received: { data, from in service.received(data, from: from) },
                    receivedRealTime: { data, from in service.receivedRealTime(data, from: from) }))
        }
        try mine.startVoiceChat(with: speaker.participant)
        return CallControl(service: mine, remote: speaker.participant)
    }

    private static func startMatch(_ engines: [VoiceEngine], switchboard: InProcessSwitchboard)
        throws(VoiceChatError) -> any VoiceSessionControl
    {
        let players = engines.map(\.participant)
        var matches: [Match] = []
        for engine in engines {
            let match = try Match(
                engine: engine, client: switchboard.client(for: engine.participant), matchID: "demo", players: players)
            switchboard.connect(
                engine.participant,
                .init(
                    received: { data, from in match.received(data, from: from) },
                    receivedRealTime: { data, from in match.receivedRealTime(data, from: from) }))
            matches.append(match)
        }
        var mine: [VoiceChannel] = []
        for (index, match) in matches.enumerated() {
            let team = try match.voiceChat(named: "team")
            let all = try match.voiceChat(named: "all")
            try team.start()
            try all.start()
            // The speaker talks in team; "me" starts there too.
            if index < 2 { try team.setActive(true) }
            if index == 0 { mine = [team, all] }
        }
        return MatchControl(match: matches[0], channels: mine)
    }

    private static func waitForEnd(duration: Double?) async {
        let end = duration.map { MediaTime.monotonicNow() + MediaTime.milliseconds($0 * 1000) }
        while !InterruptSignal.wasReceived {
            if let end, MediaTime.monotonicNow() >= end { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Runs async work from this synchronous command and waits for it.
    private static func blocking(_ body: @escaping @Sendable () async throws(CommandFailure) -> Void)
        throws(CommandFailure)
    {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<CommandFailure?>(nil)
        Task {
            do throws(CommandFailure) {
                try await body()
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
