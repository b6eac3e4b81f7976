import ArgumentParser
import Foundation
import VoiceCore
import VoiceDevices
import VoiceMedia
import VoiceSimulation
import VoiceTestHarness

/// `bench/run e2e`: the product as a user runs it, scored on what the speaker played.
struct E2EBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "e2e",
        abstract: "Two real voicechat processes, through a relay or direct, an impairment proxy between them.",
        discussion: """
            For each frame length, topology and network condition: `voicechat relay` and two \
            `voicechat join` processes, or `voicechat listen` and `voicechat call` on direct UDP, at the \
            CLI's defaults (the output says which settings it changed), real-time-paced ALSA devices of \
            a JACK server or, with --devices pipewire, of a PipeWire server with wireplumber, \
            alice's UDP toward bob through a seeded impairment proxy. The fixture is played \
            into alice's microphone in real time; what bob's speaker played is recorded and scored \
            (PESQ-WB, delay by alignment, per-second delay). Baselines in the same run: the bare device \
            loop (the delay floor) and opusenc/opusdec at the same bitrate (the quality ceiling). Writes \
            the recordings, results.jsonl and e2e.png to --report-directory.
            """
    )

    @Option(help: "Fixture speech file (in Fixtures/).") var fixture = "speech-male.wav"
    @Option(help: "Frame lengths to run, ms (comma-separated; 5, 10, 20).") var frames = "20,10"
    @Option(help: "Topologies to run (comma-separated): relay (join through a relay), direct (listen and call).")
    var topologies = "relay,direct"
    @Option(
        help:
            "Conditions to run (comma-separated): clean, loss5, loss10, bursty10 (bursts of 3 datagrams), bursty10-time (bursts of 60 ms in time), jitter40, loss10-jitter40."
    )
    var conditions = "clean,loss5,loss10,bursty10,bursty10-time,jitter40,loss10-jitter40"
    @Option(help: "Seed of the impairment proxy.") var seed: UInt64 = 7
    @Option(
        help:
            "Calls in a row for each setting and condition, 1…50; with more than one, the output adds how much the calls differ (PESQ-WB spread, concealment, steps of the delay within a call)."
    )
    var calls = 1
    @Option(help: "A delay budget for both players, ms, instead of the CLI's default (said in the output).")
    var maxDelayMs: Double?
    @Option(
        help: """
            Echo canceller settings to run each call with, comma-separated: auto (the CLI's default), on, off.             With more than one, every call runs with each in turn, and the output compares them.
            """)
    var echoCancel = "auto"
    @Option(
        help:
            "The sound server under both players' ALSA devices: jack (a JACK server, dummy backend) or pipewire (PipeWire and wireplumber with null sinks, as current desktops and SteamOS run)."
    )
    var devices = E2EDevices.Kind.jack
    @Option(help: "Where to write the recordings, results.jsonl and e2e.png.") var reportDirectory: String?

    struct Condition: Sendable {
        var name: String
        var network: NetworkConditions

        static let all: [Condition] = [
            Condition(name: "clean", network: NetworkConditions(baseDelayMilliseconds: 0)),
            Condition(name: "loss5", network: NetworkConditions(lossRate: 0.05, baseDelayMilliseconds: 0)),
            Condition(name: "loss10", network: NetworkConditions(lossRate: 0.10, baseDelayMilliseconds: 0)),
            Condition(
                name: "bursty10",
                network: NetworkConditions(lossRate: 0.10, meanBurstLength: 3, baseDelayMilliseconds: 0)),
            Condition(
                name: "bursty10-time",
                network: NetworkConditions(lossRate: 0.10, meanBurstMilliseconds: 60, baseDelayMilliseconds: 0)),
            Condition(name: "jitter40", network: NetworkConditions(baseDelayMilliseconds: 0, jitterMilliseconds: 40)),
            Condition(
                name: "loss10-jitter40",
                network: NetworkConditions(lossRate: 0.10, baseDelayMilliseconds: 0, jitterMilliseconds: 40)),
        ]
    }

    struct Row {
        var topology: E2ERun.Topology
        var frameMilliseconds: Double
        var condition: String
        /// Which of `--calls` calls in a row this is, from 0.
        var call: Int
        var pesq: Double
        var delay: Double
        var windowDelays: [Double]
        var echoCancel: String
        var listener: [String: Any]
        var talker: [String: Any]
        /// Bob's and alice's processes' CPU while the call played, as a share of one core.
        var listenerCPUShare: Double?
        var talkerCPUShare: Double?
        var proxy: ImpairmentProxy.Counts
        var machine: MachineStallReport
        /// Whether alice's voice crossed the proxy: at least one datagram for every other frame of
        /// speech. An engine that found bob's own address (his packets to her show it) may leave
        /// the impaired path for it, and the run then measures a clean network.
        var crossedProxy: Bool

        func percentile(_ share: Double) -> Double {
            let sorted = windowDelays.sorted()
            guard !sorted.isEmpty else { return delay }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * share).rounded(.up)))]
        }
    }

    /// What the report's labels add for the devices.
    private var onDevices: String { devices.labelSuffix }

    func validate() throws {
        guard (1...50).contains(calls) else { throw ValidationError("--calls takes 1 to 50, not \(calls)") }
        for frame in frames.split(separator: ",") where ![5.0, 10, 20].contains(Double(frame) ?? -1) {
            throw ValidationError("--frames takes 5, 10 or 20 (comma-separated), not \(frame)")
        }
        for name in topologies.split(separator: ",") where E2ERun.Topology(rawValue: String(name)) == nil {
            throw ValidationError("unknown topology \(name): use relay and/or direct")
        }
        if let maxDelayMs, !DelayBudget.allowedMilliseconds.contains(maxDelayMs) {
            let allowed = DelayBudget.allowedMilliseconds
            throw ValidationError(
                "--max-delay-ms takes \(allowed.lowerBound) to \(allowed.upperBound) ms, not \(maxDelayMs)")
        }
        for mode in echoCancel.split(separator: ",") where !["auto", "on", "off"].contains(mode) {
            throw ValidationError("--echo-cancel takes auto, on or off (comma-separated), not \(mode)")
        }
        let known = Set(Condition.all.map(\.name))
        for name in conditions.split(separator: ",") where !known.contains(String(name)) {
            throw ValidationError("unknown condition \(name): use \(known.sorted().joined(separator: ", "))")
        }
    }

    func run() throws {
        guard let voicechat = ProcessInfo.processInfo.environment["VOICECHAT_BIN"] else {
            throw ValidationError("VOICECHAT_BIN is not set: run this through bench/run, which builds voicechat")
        }
        guard devices.isInstalled else {
            throw ValidationError("\(devices.description) is missing: run scripts/setup.sh first")
        }
        let scorer = try SpeechScorer()
        let directory = reportDirectory ?? projectRoot + "/bench/reports/e2e"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("voicechat-e2e-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }

        let fixtures = ProcessInfo.processInfo.environment["VOICECHAT_FIXTURES"] ?? projectRoot + "/Fixtures"
        let speech = try WAVAudio(contentsOfFile: fixtures + "/" + fixture).samples
        // A second of silence first (the processes settle), a second after (the tail plays out).
        let signal = [Float](repeating: 0, count: 48_000) + speech + [Float](repeating: 0, count: 48_000)
        let periodFrames = VoiceDefaults.devicePeriodFrames

        // The quality ceiling: opusenc/opusdec at the shipped bitrate and complexity.
        let bitrate = VoiceDefaults.bitrate
        let encoded = directory + "/opusenc.opus"
        let ceilingFile = directory + "/opusenc.wav"
        _ = try scorer.run(
            "/usr/bin/opusenc",
            [
                "--quiet", "--bitrate", "\(bitrate / 1000)", "--comp", "\(VoiceDefaults.complexity)", "--framesize",
                "20", fixtures + "/" + fixture, encoded,
            ])
        _ = try scorer.run("/usr/bin/opusdec", ["--quiet", "--rate", "48000", encoded, ceilingFile])
        let ceiling =
            try scorer.score(reference: fixtures + "/" + fixture, degraded: [ceilingFile])[ceilingFile]?
            .pesq_wb ?? 0

        let budget = maxDelayMs.map { "--max-delay-ms \(E2ERun.format($0)) (not the default budget); " } ?? ""
        print(
            "settings: CLI defaults (complexity \(VoiceDefaults.complexity), \(bitrate / 1000) kbit/s, delay budget "
                + "60 ms + two frames) except: \(budget)relay, --path relay, which keeps voice on the relay and through the "
                + "proxy (on loopback, auto would go direct); direct, --advertise: the listener offers the proxy's "
                + "address, which puts the proxy on the caller's direct UDP, and the caller an address nobody answers "
                + "on, as behind a NAT that lets only replies in")
        print(
            "devices: \(devices.description), \(periodFrames)-frame periods"
        )
        let modes = echoCancel.split(separator: ",").map(String.init)
        if modes != ["auto"] {
            print(
                "echo canceller: every call runs with --echo-cancel \(modes.joined(separator: ", then ")) "
                    + "(auto is the CLI's default)")
        }
        var rows: [Row] = []
        var floors: [Double: Double] = [:]
        /// The device loop's CPU share per frame length: the baseline of the players' CPU figures.
        var floorCPUShares: [Double: Double] = [:]
        let selected = Condition.all.filter { conditions.split(separator: ",").map(String.init).contains($0.name) }
        let chosen = topologies.split(separator: ",").compactMap { E2ERun.Topology(rawValue: String($0)) }
        for (frameIndex, frame) in frames.split(separator: ",").compactMap({ Double($0) }).enumerated() {
            let server = try E2EDevices(
                devices, serverName: "vce2e\(getpid())f\(frameIndex)", periodFrames: periodFrames, directory: work
            )
            defer { server.stop() }
            func run(_ chain: E2ERun.Chain, tag: String, echoCancel: String = "auto") throws -> E2ERun.Recording {
                try E2ERun(
                    voicechat: voicechat, devices: server, frameMilliseconds: frame,
                    maximumDelayMilliseconds: maxDelayMs, echoCancellation: echoCancel == "auto" ? nil : echoCancel,
                    periodFrames: periodFrames,
                    signal: signal, tag: "\(frameIndex)\(tag)", directory: work
                ).record(chain)
            }
            let floorRecording = try run(.deviceLoop, tag: "floor")
            let floor = try score(floorRecording, name: "floor-\(E2ERun.format(frame))ms", in: directory, scorer)
            floors[frame] = floor.delay
            floorCPUShares[frame] = floorRecording.deviceLoopCPUShare
            let floorCPU = floorRecording.deviceLoopCPUShare.map {
                ", its process used \(fixed($0 * 100, 2)) % of a core"
            }
            print(
                "\(E2ERun.format(frame)) ms frames\(onDevices): device loop \(fixed(floor.delay)) ms\(floorCPU ?? "")  "
                    + "(\(floorRecording.machine))")
            for topology in chosen {
                for (index, condition) in selected.enumerated() {
                    for (modeIndex, mode) in modes.enumerated() {
                        for call in 0..<calls {
                            let modeLabel =
                                (modes == ["auto"] ? "" : " echo-cancel \(mode)")
                                + (calls == 1 ? "" : " call \(call + 1)")
                            let name =
                                "\(topology.rawValue)-\(condition.name)-\(E2ERun.format(frame))ms"
                                + (modes == ["auto"] ? "" : "-echo-\(mode)") + (calls == 1 ? "" : "-call\(call + 1)")
                            let recording = try run(
                                .call(topology, conditions: condition.network, seed: seed),
                                tag: "\(topology.rawValue.prefix(1))\(index)m\(modeIndex)c\(call)", echoCancel: mode)
                            let scored = try score(recording, name: name, in: directory, scorer)
                            let row = Row(
                                topology: topology, frameMilliseconds: frame, condition: condition.name, call: call,
                                pesq: scored.pesq,
                                delay: scored.delay, windowDelays: scored.windows, echoCancel: mode,
                                listener: recording.listenerStatistics, talker: recording.talkerStatistics,
                                listenerCPUShare: recording.listenerCPUShare, talkerCPUShare: recording.talkerCPUShare,
                                proxy: recording.proxy,
                                machine: recording.machine,
                                crossedProxy: Double(recording.proxy.sent) >= 0.5 * Double(speech.count) / (frame * 48))
                            rows.append(row)
                            if !row.crossedProxy {
                                print(
                                    "  \(topology.rawValue) \(condition.name)\(modeLabel): voice left the proxy's path (the figures below skip it)"
                                )
                            }
                            var cpu = ""
                            if let listener = row.listenerCPUShare, let talker = row.talkerCPUShare {
                                cpu =
                                    "bob's process used \(fixed(listener * 100, 2)) % of a core, alice's \(fixed(talker * 100, 2)) %; "
                            }
                            print(
                                "  \(topology.rawValue) \(condition.name)\(modeLabel): PESQ-WB \(fixed(row.pesq, 3)), delay "
                                    + "\(fixed(row.delay)) ms (engine \(fixed(row.delay - floor.delay))), per-second p95 "
                                    + "\(fixed(row.percentile(0.95))) ms, proxy dropped \(row.proxy.dropped) of \(row.proxy.sent), "
                                    + "held up \(row.proxy.late) times (latest \(fixed(Double(row.proxy.maximumLateness) / 1e6)) ms)  "
                                    + "\(Self.listenerSummary(row.listener)); \(cpu)\(Self.devicesSummary(row))  (\(recording.machine))"
                            )
                        }
                    }
                }
            }
        }
        try writeResults(rows, floors: floors, ceiling: ceiling, into: directory, scorer)
        var report = BenchmarkReport(bench: "e2e")
        report.add("opusenc/opusdec, \(bitrate / 1000) kbit/s", ceiling, unit: "PESQ-WB")
        for (frame, floor) in floors.sorted(by: { $0.key > $1.key }) {
            report.add("\(E2ERun.format(frame)) ms\(onDevices) device loop delay (floor)", floor, unit: "ms")
            for topology in chosen {
                for mode in modes {
                    let ofRun = rows.filter {
                        $0.frameMilliseconds == frame && $0.topology == topology && $0.echoCancel == mode
                            && $0.crossedProxy && $0.call == 0
                    }
                    for row in rows
                    where row.frameMilliseconds == frame && row.topology == topology && !row.crossedProxy {
                        report.require(
                            false,
                            "\(E2ERun.format(frame)) ms \(topology.rawValue) \(row.condition): alice's voice left the impaired "
                                + "path after \(row.proxy.sent) datagrams (the engine found another way to bob)")
                    }
                    addFigures(
                        ofRun, frame: frame,
                        label: "\(E2ERun.format(frame)) ms\(onDevices) \(topology.rawValue)"
                            + (modes == ["auto"] ? "" : " echo-cancel \(mode)"),
                        floor: floor, floorCPUShare: floorCPUShares[frame], ceiling: ceiling, to: &report)
                }
                if modes.count > 1 {
                    addEchoComparison(
                        rows.filter { $0.call == 0 }, frame: frame, topology: topology, modes: modes, to: &report)
                }
                if calls > 1 {
                    addStability(
                        rows.filter { $0.frameMilliseconds == frame && $0.topology == topology && $0.crossedProxy },
                        label: "\(E2ERun.format(frame)) ms\(onDevices) \(topology.rawValue)", to: &report)
                }
            }
        }
        if !report.finish() { throw ExitCode(1) }
    }

    /// One topology's figures at one frame length, with their targets: quality against
    /// opusenc (clean) and against clean (the rest, at 20 ms frames), the clean delay, and every
    /// condition's per-second p95 against the delay budget.
    private func addFigures(
        _ rows: [Row], frame: Double, label: String, floor: Double, floorCPUShare: Double?, ceiling: Double,
        to report: inout BenchmarkReport
    ) {
        let clean = rows.first { $0.condition == "clean" }
        let budget = VoiceDefaults.maximumDelayMilliseconds(frameDuration: FrameDuration(milliseconds: frame) ?? .ms20)
        if let clean {
            report.add(
                "\(label) clean PESQ-WB", clean.pesq, unit: "PESQ-WB", baseline: ceiling,
                target: frame == 20 ? .atLeast(ceiling - 0.05) : nil)
            report.add(
                "\(label) clean engine delay", clean.delay - floor, unit: "ms", baseline: floor,
                target: .atMost(frame == 20 ? 45 : frame == 10 ? 30 : budget))
        }
        let ratios: [String: Double] = ["loss10": 0.85, "bursty10": 0.70, "bursty10-time": 0.65, "jitter40": 0.95]
        for row in rows where row.condition != "clean" {
            let target =
                frame == 20 ? ratios[row.condition].map { BenchmarkTarget.atLeast($0 * (clean?.pesq ?? 0)) } : nil
            report.add(
                "\(label) \(row.condition) PESQ-WB", row.pesq, unit: "PESQ-WB", baseline: clean?.pesq, target: target)
        }
        // What each player's process costs a game: at most 2 % of a core in a clean call at the
        // defaults. The baseline is the device loop's process, which only moves audio through the
        // same devices: what the sound server's cycle costs any process on this machine.
        if let clean, let listener = clean.listenerCPUShare, let talker = clean.talkerCPUShare {
            let target: BenchmarkTarget? = frame == 20 ? .atMost(2) : nil
            let loop = floorCPUShare.map { $0 * 100 }
            report.add(
                "\(label) clean bob's CPU (listening)", listener * 100, unit: "% of a core", baseline: loop,
                target: target)
            report.add(
                "\(label) clean alice's CPU (talking)", talker * 100, unit: "% of a core", baseline: loop,
                target: target)
        }
        for row in rows {
            report.add(
                "\(label) \(row.condition) engine delay p95 (per second)", row.percentile(0.95) - floor, unit: "ms",
                baseline: budget, target: .atMost(budget))
        }
    }

    /// How much calls in a row at the same settings differ, per condition and echo setting: the
    /// spread of their PESQ-WB (target in clean calls: at most 0.05), the calls that concealed
    /// audio with no packet lost, and the calls whose delay stepped (per-second delays more than
    /// 10 ms apart; target in clean calls: none).
    private func addStability(_ rows: [Row], label: String, to report: inout BenchmarkReport) {
        let groups = Dictionary(grouping: rows) {
            $0.condition + ($0.echoCancel == "auto" ? "" : " echo-cancel \($0.echoCancel)")
        }
        for (name, calls) in groups.sorted(by: { $0.key < $1.key }) {
            let scores = calls.map(\.pesq)
            let isClean = calls.first?.condition == "clean"
            let spans = calls.map { ($0.windowDelays.min() ?? 0, $0.windowDelays.max() ?? 0) }
            let stepped = spans.filter { $0.1 - $0.0 > 10 }.count
            let concealed = calls.map { Self.concealedMilliseconds($0.listener) }
            let concealedWithNothingLost = zip(calls, concealed).filter { call, milliseconds in
                milliseconds > 0 && Self.packetsLost(call.listener) == 0
            }.count
            print(
                "  \(label) \(name), \(calls.count) calls: PESQ-WB \(scores.map { fixed($0, 3) }.joined(separator: ", ")); "
                    + "delay per second \(spans.map { "\(fixed($0.0))–\(fixed($0.1))" }.joined(separator: ", ")) ms; "
                    + "concealed \(concealed.map { fixed($0) }.joined(separator: ", ")) ms")
            report.add(
                "\(label) \(name) PESQ-WB spread over \(calls.count) calls", (scores.max() ?? 0) - (scores.min() ?? 0),
                unit: "PESQ-WB", baseline: scores.min(), target: isClean ? .atMost(0.05) : nil)
            report.add(
                "\(label) \(name) calls whose delay stepped", Double(stepped), unit: "calls",
                target: isClean ? .atMost(0) : nil)
            report.add(
                "\(label) \(name) calls concealing with no packet lost", Double(concealedWithNothingLost),
                unit: "calls")
        }
    }

    /// Alice's stream in bob's statistics: what it concealed, ms.
    static func concealedMilliseconds(_ statistics: [String: Any]) -> Double {
        Double(aliceStream(statistics)?["concealedSamples"] as? Int ?? 0) * 1_000 / 48_000
    }

    /// Alice's stream in bob's statistics: its packets lost.
    static func packetsLost(_ statistics: [String: Any]) -> Int {
        aliceStream(statistics)?["packetsLost"] as? Int ?? 0
    }

    private static func aliceStream(_ statistics: [String: Any]) -> [String: Any]? {
        (statistics["participants"] as? [[String: Any]])?.first { $0["participant"] as? String == "alice" }
    }

    /// What the echo canceller costs a call with no echo to cancel: each later setting's PESQ-WB,
    /// delay and bob's CPU against the first's, per condition (the target: within 0.02 of PESQ-WB).
    private func addEchoComparison(
        _ rows: [Row], frame: Double, topology: E2ERun.Topology, modes: [String], to report: inout BenchmarkReport
    ) {
        let label = "\(E2ERun.format(frame)) ms\(onDevices) \(topology.rawValue)"
        for condition in Set(rows.map(\.condition)).sorted() {
            let ofCondition = rows.filter {
                $0.frameMilliseconds == frame && $0.topology == topology && $0.condition == condition && $0.crossedProxy
            }
            guard let first = ofCondition.first(where: { $0.echoCancel == modes[0] }) else { continue }
            for mode in modes.dropFirst() {
                guard let other = ofCondition.first(where: { $0.echoCancel == mode }) else { continue }
                report.add(
                    "\(label) \(condition) PESQ-WB, echo-cancel \(modes[0]) against \(mode)", first.pesq,
                    unit: "PESQ-WB",
                    baseline: other.pesq, target: condition == "clean" ? .atLeast(other.pesq - 0.02) : nil)
                report.add(
                    "\(label) \(condition) delay, echo-cancel \(modes[0]) against \(mode)", first.delay, unit: "ms",
                    baseline: other.delay)
                if let cpu = first.listenerCPUShare, let otherCPU = other.listenerCPUShare {
                    report.add(
                        "\(label) \(condition) bob's CPU, echo-cancel \(modes[0]) against \(mode)", cpu * 100,
                        unit: "% of a core", baseline: otherCPU * 100)
                }
            }
        }
    }

    private func score(_ recording: E2ERun.Recording, name: String, in directory: String, _ scorer: SpeechScorer) throws
        -> (pesq: Double, delay: Double, windows: [Double])
    {
        let reference = directory + "/\(name)-said.wav"
        let heard = directory + "/\(name)-heard.wav"
        try WAVAudio(format: .engineMono, sampleFormat: .float32, samples: recording.reference).write(toFile: reference)
        try WAVAudio(format: .engineMono, sampleFormat: .float32, samples: recording.heard).write(toFile: heard)
        guard let score = try scorer.score(reference: reference, degraded: [heard])[heard] else {
            throw ValidationError("no score for \(heard)")
        }
        return (score.pesq_wb ?? 0, score.delay_ms ?? 0, score.window_delays_ms ?? [])
    }

    /// Bob's view of alice at the end: his buffer's target, what held it there, the loss he saw.
    static func listenerSummary(_ statistics: [String: Any]) -> String {
        guard let alice = aliceStream(statistics) else { return "" }
        let target = (alice["targetDelayMilliseconds"] as? Double).map { fixed($0) } ?? "?"
        let held = alice["delayHeldFor"] as? String ?? "?"
        let loss = (alice["lossFraction"] as? Double).map { fixed($0 * 100, 2) } ?? "?"
        let recovered = alice["packetsRecovered"] as? Int ?? 0
        let buffered = (alice["bufferDelayMilliseconds"] as? Double).map { fixed($0) } ?? "?"
        let concealed = (alice["concealedSamples"] as? Int).map { fixed(Double($0) * 1_000 / 48_000) } ?? "?"
        func count(_ key: String) -> String { (alice[key] as? Int).map(String.init) ?? "?" }
        return "target \(target) ms (\(held)), buffered \(buffered) ms, unrepaired loss \(loss) %, recovered "
            + "\(recovered), concealed \(concealed) ms, late \(count("packetsLate")), frames inserted "
            + "\(count("framesInserted")) and skipped \(count("framesSkipped"))"
    }

    /// What the devices did that moves or cuts the audio: alice's microphone dropping or losing
    /// frames and how late her engine thread woke (a frame it sends late comes late to bob), bob's
    /// speaker running dry (each dry run moves what follows later by a period), and bob's playout
    /// lead; and whether alice's echo canceller ran and heard her speaker.
    static func devicesSummary(_ row: Row) -> String {
        let microphone = row.talker["devices"] as? [String: Any] ?? [:]
        let speaker = row.listener["devices"] as? [String: Any] ?? [:]
        let echo = row.talker["echoCancellation"] as? [String: Any]
        func count(_ object: [String: Any], _ key: String) -> String { (object[key] as? Int).map(String.init) ?? "?" }
        let lead = (speaker["playoutLeadMilliseconds"] as? Double).map { fixed($0) } ?? "?"
        let late = (speaker["engineThreadLatestWakeMilliseconds"] as? Double).map { fixed($0, 2) } ?? "?"
        let commands = (speaker["engineCommandLongestRunMilliseconds"] as? Double).map { fixed($0, 2) } ?? "?"
        let talkerLate = (microphone["engineThreadLatestWakeMilliseconds"] as? Double).map { fixed($0, 2) } ?? "?"
        return "alice's microphone dropped \(count(microphone, "microphoneDroppedFrames")), lost "
            + "\(count(microphone, "captureFramesLost")) frames, her engine thread at most \(talkerLate) ms late; "
            + "bob's speaker ran dry for "
            + "\(count(speaker, "speakerStarvedFrames")) frames and took back \(count(speaker, "playbackSamplesReclaimed")), "
            + "lead \(lead) ms, skipped \(count(speaker, "playbackFramesSkipped")) frames, engine thread at most "
            + "\(late) ms late and running calls for at most \(commands) ms a turn; "
            + "alice's echo canceller "
            + (echo.map {
                "cancelled \(count($0, "framesCancelled")) frames, \(count($0, "framesWithEcho")) with her speaker audible, "
                    + "\(count($0, "framesPassedThrough")) let through untouched"
            }
                ?? "off")
    }

    private func writeResults(
        _ rows: [Row], floors: [Double: Double], ceiling: Double, into directory: String, _ scorer: SpeechScorer
    ) throws {
        var lines: [String] = []
        for row in rows {
            let floor = floors[row.frameMilliseconds] ?? 0
            var object: [String: Any] = [:]
            object["topology"] = row.topology.rawValue
            object["frame_ms"] = row.frameMilliseconds
            object["condition"] = row.condition
            object["echo_cancel"] = row.echoCancel
            object["listener_cpu_share"] = row.listenerCPUShare
            object["talker_cpu_share"] = row.talkerCPUShare
            object["pesq_wb"] = row.pesq
            object["delay_ms"] = row.delay
            object["device_floor_ms"] = floor
            object["engine_delay_ms"] = row.delay - floor
            object["engine_delay_p95_ms"] = row.percentile(0.95) - floor
            object["delay_spread_ms"] = row.percentile(0.95) - row.percentile(0.05)
            object["window_delays_ms"] = row.windowDelays
            object["opusenc_pesq_wb"] = ceiling
            object["proxy_sent"] = row.proxy.sent
            object["proxy_dropped"] = row.proxy.dropped
            object["proxy_late"] = row.proxy.late
            object["proxy_max_late_ms"] = Double(row.proxy.maximumLateness) / 1e6
            object["steal"] = row.machine.stealShare
            object["stalls"] = row.machine.stalls
            object["listener"] = Self.listenerSummary(row.listener)
            object["devices"] = Self.devicesSummary(row)
            object["crossed_proxy"] = row.crossedProxy
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            lines.append(String(decoding: data, as: UTF8.self))
        }
        let results = directory + "/results.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: results, atomically: true, encoding: .utf8)
        _ = try scorer.run(venvPython, [projectRoot + "/bench/scoring/plot_e2e.py", results, directory + "/e2e.png"])
        print("wrote \(results) and \(directory)/e2e.png")
    }
}

private func fixed(_ value: Double, _ digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
}
