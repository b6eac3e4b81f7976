import Foundation
import VoiceCore
import VoiceDevices
import VoiceSimulation
import VoiceTestHarness

/// One measured run of the latency benchmark: the processes under test (two engine peers in a
/// call, or the bare device copy), the click train played into the near end's microphone port
/// and the far end's speaker port recorded, all on one JACK server.
///
/// The benchmark is a JACK client of its own through two ALSA jack PCMs: `lat_inj` plays the
/// clicks, and the 2-channel `lat_det` records the clicks as they enter the near end's
/// microphone (channel 0) and what leaves the far end's speaker (channel 1). Both channels pass
/// through the same capture in the same JACK cycle, so their difference is the latency from
/// the microphone port to the speaker port and nothing of the benchmark's own buffering.
struct LatencyRun {
    enum Kind: String {
        case engine, baseline
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// The machine, not the chain, failed: the recording fell behind real time.
        var isStall = false
    }

    struct Result {
        /// The clicks after the warm-up, found or not.
        var arrivals: [ClickTrain.Arrival]
        /// The far end's (B's) statistics line, and the near end's (A's) for a call.
        var farStatistics: [String: Double]
        var nearStatistics: [String: Double]
        /// What the host did to this machine meanwhile: on a shared virtual machine, the steal
        /// and stalls a run was up against say how far its figures speak for the engine.
        var machine: MachineStallReport
    }

    let kind: Kind
    let mode: LatencyMode
    let server: JACKServer
    let train: ClickTrain
    let bufferPeriods: Int
    let seconds: Double
    let warmupSeconds: Double
    /// A fresh suffix for JACK client names, so that a client still closing never clashes.
    let tag: String
    let directory: String

    static let leadSeconds = 0.2

    func measure() throws -> Result {
        let watch = MachineStallWatch()
        defer { _ = watch.finish() }  // a failed run stops the watch's thread too
        let configuration = try writeALSAConfiguration()
        let environment = ["ALSA_CONFIG_PATH": configuration, "JACK_DEFAULT_SERVER": server.name]
        setenv("ALSA_CONFIG_PATH", configuration, 1)
        defer { try? FileManager.default.removeItem(atPath: configuration) }

        let common = [
            "--frame-ms", "\(mode.frameMilliseconds)", "--period-frames", "\(mode.periodFrames)",
            "--buffer-periods", "\(bufferPeriods)", "--margin-frames", "\(mode.marginFrames)",
        ]
        var peers: [ChildProcess] = []
        defer { for peer in peers { peer.stop() } }
        let near: ChildProcess
        let far: ChildProcess
        switch kind {
        case .baseline:
            near = try ChildProcess(
                label: "copy",
                arguments: ["latency-peer", "--role", "copy", "--capture", "lat_a_mic", "--playback", "lat_b_spk"]
                    + common, environment: environment)
            far = near
            peers = [near]
        case .engine:
            // The benchmark is the app: it carries each peer's signalling to the other.
            func callPeer(
                _ participant: String, remote: String, role: String, signallingTo other: LockedValue<ChildProcess?>
            ) throws -> ChildProcess {
                try ChildProcess(
                    label: "peer \(participant)",
                    arguments: [
                        "latency-peer", "--role", role, "--participant", participant, "--remote", remote, "--capture",
                        "lat_\(participant)_mic", "--playback", "lat_\(participant)_spk",
                    ] + common, environment: environment
                ) { line in
                    guard line.hasPrefix("signal ") else { return false }
                    other.value?.send(line)
                    return true
                }
            }
            let toFar = LockedValue<ChildProcess?>(nil)
            let toNear = LockedValue<ChildProcess?>(nil)
            near = try callPeer("a", remote: "b", role: "caller", signallingTo: toFar)
            peers.append(near)
            far = try callPeer("b", remote: "a", role: "callee", signallingTo: toNear)
            peers.append(far)
            toFar.value = far
            toNear.value = near
        }
        for peer in peers {
            guard let line = peer.waitForLine(prefixes: ["ready", "failed"], timeout: 30), line == "ready" else {
                throw Failure(description: "\(peer.label) did not open its devices (see its messages above)")
            }
        }
        if kind == .engine {
            near.send("call")
            for peer in peers {
                guard let line = peer.waitForLine(prefixes: ["started", "failed"], timeout: 20),
                    line.hasPrefix("started")
                else {
                    throw Failure(description: "the call did not start at \(peer.label)")
                }
            }
        }

        let total = Self.leadSeconds + warmupSeconds + seconds
        let signal = train.signal(seconds: total, leadSeconds: Self.leadSeconds)
        let recording = try play(signal, seconds: total)
        let reference = stride(from: 0, to: recording.count - 1, by: 2).map { recording[$0] }
        let received = stride(from: 1, to: recording.count, by: 2).map { recording[$0] }
        let maximum = min(train.intervalSeconds * 800, 400)
        let measured = train.arrivals(reference: reference, received: received, maximumLatencyMilliseconds: maximum)
            .filter { $0.sentSeconds >= Self.leadSeconds + warmupSeconds - 0.05 }

        far.send("stats")
        let farStatistics = parse(far.waitForLine(prefixes: ["stats "], timeout: 5))
        var nearStatistics: [String: Double] = [:]
        if kind == .engine {
            near.send("stats")
            nearStatistics = parse(near.waitForLine(prefixes: ["stats "], timeout: 5))
        }
        return Result(
            arrivals: measured, farStatistics: farStatistics, nearStatistics: nearStatistics, machine: watch.finish())
    }

    /// Plays `signal` into the near end's microphone port and records both channels.
    private func play(_ signal: [Float], seconds: Double) throws -> [Float] {
        let recording = try ChainRecorder(jack: server, prefix: "lat", tag: tag, periodFrames: mode.periodFrames)
            .playAndRecord(signal)
        let read = recording.count / 2
        if read < Int(seconds * 48_000) {
            // The recorder lost frames: its thread or the JACK server did not keep up with real
            // time, which on this shared machine means the host stalled it. The chain's own
            // latency is measured on the same clock, so only a whole run is worth keeping.
            throw Failure(
                description: "recorded \(read) frames of \(Int(seconds * 48_000)) (the machine stalled); "
                    + "ports: \(server.connections())", isStall: true)
        }
        return recording
    }

    /// One jack PCM per port of the chain; every PCM is wired to a system port at first (the
    /// plugin refuses to open without a connection), and the benchmark adds the chain's own.
    private func writeALSAConfiguration() throws -> String {
        func playback(_ pcm: String, _ client: String) -> String {
            "pcm.\(pcm) { type jack name \"\(client)\(tag)\" playback_ports { 0 system:playback_1 } }"
        }
        func capture(_ pcm: String, _ client: String) -> String {
            "pcm.\(pcm) { type jack name \"\(client)\(tag)\" capture_ports { 0 system:capture_1 } }"
        }
        let text = """
            </usr/share/alsa/alsa.conf>
            \(playback("lat_inj", "inj"))
            pcm.lat_det { type jack name "det\(tag)" capture_ports { 0 system:capture_1 1 system:capture_2 } }
            \(capture("lat_a_mic", "amic"))
            \(playback("lat_a_spk", "aspk"))
            \(capture("lat_b_mic", "bmic"))
            \(playback("lat_b_spk", "bspk"))

            """
        let path = directory + "/asound-\(tag).conf"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func parse(_ line: String?) -> [String: Double] {
        guard let line, let data = line.dropFirst("stats ".count).data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }
}
