import Foundation
import VoiceControl

/// What `--log-level debug` prints every second: a line per player with the path, the network
/// and the jitter buffer, and one for the devices.
enum DebugStatistics {
    static func lines(_ snapshot: SessionSnapshot) -> [String] {
        var lines = snapshot.participants.map { player in
            "debug: \(player.participant): path \(player.path ?? "none")"
                + (player.rttMilliseconds.map { String(format: ", rtt %.0f ms", $0) } ?? "")
                + String(
                    format: ", loss %.1f %%, jitter %.1f ms, buffer %.0f ms (target %.0f, held for %@)",
                    player.lossFraction * 100, player.jitterMilliseconds, player.bufferDelayMilliseconds,
                    player.targetDelayMilliseconds, player.delayHeldFor)
                + "; \(player.packetsReceived) packets, \(player.packetsLost) lost, "
                + "\(player.packetsRecovered) recovered, \(player.concealedSamples) samples concealed"
        }
        if let devices = snapshot.devices {
            lines.append(
                "debug: devices: speaker starved \(devices.speakerStarvedFrames) frames, \(devices.speakerXruns) xruns; "
                    + "microphone dropped \(devices.microphoneDroppedFrames) frames, \(devices.microphoneXruns) xruns, "
                    + "lost \(devices.captureFramesLost); playback skipped \(devices.playbackFramesSkipped) frames"
                    + (devices.playoutLeadMilliseconds.map { String(format: "; playout lead %.1f ms", $0) } ?? ""))
        }
        return lines
    }
}
