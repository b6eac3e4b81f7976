import ArgumentParser
import Foundation
import Synchronization
import VoiceCore
import VoiceDevices
import VoiceEngine
import VoiceIO
import VoiceMedia

/// `latency-peer`: one process under test of `bench/run latency`. Either one side of a call (a
/// `VoiceEngine` with a `VoiceChatService` on a `UDPNetwork` at 127.0.0.1, ALSA jack PCMs as its
/// microphone and speaker) or, as the baseline, a bare copy from the capture PCM to the playback
/// PCM with no engine in between.
///
/// It talks in lines. Out: `ready` (devices open, JACK ports exist), `signal <base64>` (for the
/// other peer), `started <path>`, `failed <reason>`, `stats <json>`. In: `call`, `signal
/// <base64>`, `stats`, `stop` (or end of input).
struct LatencyPeerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency-peer", abstract: "A peer (or the bare device copy) that `latency` drives.",
        shouldDisplay: false)

    enum Role: String, ExpressibleByArgument {
        case caller, callee, copy
    }

    @Option(help: "caller, callee, or copy (the baseline).") var role: Role
    @Option(help: "This participant's ID.") var participant = "a"
    @Option(help: "The other participant's ID.") var remote = "b"
    @Option(help: "ALSA capture PCM.") var capture: String
    @Option(help: "ALSA playback PCM.") var playback: String
    @Option(help: "Engine frame length in ms.") var frameMs = 10.0
    @Option(help: "Device period in frames.") var periodFrames = 480
    @Option(help: "Device buffer in periods.") var bufferPeriods = 2
    @Option(help: "Jitter-buffer margin over the delay percentile, in frames.") var marginFrames = 1.0

    func run() throws {
        let writer = LineWriter()
        var device = ALSADeviceConfiguration(
            sampleFormat: .float32, periodFrames: periodFrames, bufferFrames: bufferPeriods * periodFrames)
        device.name = capture
        let microphone = try ALSACaptureDevice(device)
        device.name = playback
        let speaker = try ALSAPlaybackDevice(device)
        if role == .copy {
            try copy(from: microphone, to: speaker, writer: writer)
            return
        }
        guard let frame = FrameDuration(milliseconds: frameMs) else {
            throw ValidationError("--frame-ms \(frameMs) is not an Opus frame length (2.5, 5, 10, 20, 40 or 60)")
        }
        var jitter = JitterBufferConfiguration(frameDuration: frame)
        jitter.targetMarginFrames = marginFrames
        let configuration = EngineConfiguration(frameDuration: frame, jitterBuffer: jitter)
        let network = try runBlocking { try await UDPNetwork.bind(host: "127.0.0.1") }
        let engine = try VoiceEngine(
            participant: ParticipantID(participant), configuration: configuration, input: microphone, output: speaker,
            network: network)
        network.deliver(to: engine)
        let client = StdoutSignallingClient(participant: ParticipantID(participant), writer: writer)
        let serviceBox = LockedValue<VoiceChatService?>(nil)
        let service = VoiceChatService(engine: engine, client: client) { [writer] event in
            switch event {
            case .invitation(let call, _):
                do {
                    try serviceBox.value?.accept(call)
                } catch {
                    writer.write("failed accepting: \(error)")
                }
            case .started(_, _, let path): writer.write("started \(path)")
            case .didNotStart(_, _, let reason): writer.write("failed the call did not start: \(reason)")
            case .stopped(_, _, let reason): writer.write("failed the call stopped: \(reason)")
            default: break
            }
        }
        serviceBox.value = service
        try engine.start()
        writer.write("ready")
        while let line = readLine(strippingNewline: true), line != "stop" {
            if line == "call" {
                do {
                    try service.startVoiceChat(with: ParticipantID(remote))
                } catch {
                    writer.write("failed calling: \(error)")
                }
            } else if line.hasPrefix("signal "), let data = Data(base64Encoded: String(line.dropFirst(7))) {
                service.received([UInt8](data), from: ParticipantID(remote))
            } else if line == "stats" {
                writer.write("stats " + statistics(engine: engine, microphone: microphone, speaker: speaker))
            }
        }
        try? service.stopVoiceChat(with: ParticipantID(remote))
        engine.shutDown()
        try? runBlocking { await network.close() }
    }

    /// The baseline: moves whatever the capture ring holds to the playback ring, checking every
    /// millisecond, until told to stop.
    private func copy(from microphone: ALSACaptureDevice, to speaker: ALSAPlaybackDevice, writer: LineWriter) throws {
        try microphone.start()
        try speaker.start()
        // An AudioThread's stop flag is an atomic: the loop stands in for a device loop, which takes no lock.
        let thread = try AudioThread(name: "device copy", scheduling: .normal) { thread in
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4_800)
            defer { buffer.deallocate() }
            var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            while !thread.shouldStop {
                let count = microphone.read(into: buffer)
                if count > 0 { _ = speaker.write(UnsafeBufferPointer(rebasing: buffer[0..<count])) }
                nanosleep(&pause, nil)
            }
        }
        writer.write("ready")
        while let line = readLine(strippingNewline: true), line != "stop" {
            if line == "stats" {
                writer.write("stats " + deviceStatistics(microphone: microphone, speaker: speaker) + "}")
            }
        }
        thread.join()
        microphone.stop()
        speaker.stop()
    }

    private func deviceStatistics(microphone: ALSACaptureDevice, speaker: ALSAPlaybackDevice) -> String {
        let capture = microphone.statistics
        let playback = speaker.statistics
        return "{\"capture_xruns\": \(capture.xruns), \"capture_ring_dropped\": \(capture.ringStarvedFrames), "
            + "\"playback_xruns\": \(playback.xruns), \"playback_ring_starved\": \(playback.ringStarvedFrames), "
            + "\"capture_backlog_frames\": \(microphone.availableToRead), "
            + "\"playback_queued_frames\": \(speaker.queuedFrames)"
    }

    private func statistics(engine: VoiceEngine, microphone: ALSACaptureDevice, speaker: ALSAPlaybackDevice)
        -> String
    {
        var line = deviceStatistics(microphone: microphone, speaker: speaker)
        let catchUp = engine.counters.deviceCatchUp
        line += ", \"playout_lead_ms\": \(catchUp.playoutLeadMilliseconds ?? -1)"
        line += ", \"playback_frames_skipped\": \(catchUp.playbackFramesSkipped)"
        line += ", \"capture_frames_lost\": \(catchUp.captureFramesLost)"
        if let peer = engine.statistics().first {
            line += ", \"rtt_ms\": \(peer.roundTripMilliseconds ?? -1)"
            if let stream = peer.streams.values.first {
                line += ", \"target_delay_ms\": \(stream.receive.targetDelayMilliseconds)"
                line += ", \"p95_buffering_ms\": \(stream.receive.p95BufferingDelayMilliseconds)"
                line += ", \"late\": \(stream.receive.packetsLate), \"lost\": \(stream.receive.packetsLost)"
                line += ", \"received\": \(stream.receive.packetsReceived)"
            }
        }
        return line + "}"
    }
}
