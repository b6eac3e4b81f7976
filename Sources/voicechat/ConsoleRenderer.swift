import Foundation
import VoiceControl

/// The interactive console's picture of a session: a block of text lines drawn from one snapshot,
/// with no terminal in sight, so what it shows can be tested.
enum ConsoleRenderer {
    /// The meters span this range of dBFS.
    static let floorDB: Float = -60

    /// The keys, quitting first so that it is seen on the narrowest terminal.
    static let keys = [
        "q quit", "m mute", "p push-to-talk", "space/t talk", "+/- volume", "v volume of: channel, player 1, 2…",
        "1-9 mute player", "tab/c next channel",
    ]

    /// The keys in lines of at most `width` characters (one line when it fits), none cut.
    static func keyLines(width: Int) -> [String] {
        var lines: [String] = []
        var line = "keys:"
        for key in keys {
            let candidate = line + "  " + key
            if candidate.count > width, line.count > "keys:".count || lines.count > 0 {
                lines.append(line)
                line = "     " + "  " + key
            } else {
                line = candidate
            }
        }
        lines.append(line)
        return lines
    }

    /// The lines to draw, each at most `width` characters, and `status` (the last key's outcome)
    /// at the bottom.
    static func lines(for snapshot: SessionSnapshot, status: String = "", width: Int = 100) -> [String] {
        var lines: [String] = []
        var microphone = snapshot.microphoneMuted ? "MUTED" : "live"
        if snapshot.pushToTalk { microphone += snapshot.talking ? ", talking" : ", push-to-talk (not talking)" }
        lines.append("voicechat \(clock(snapshot.time))  microphone \(microphone)")
        lines.append("  in  \(meter(snapshot.inputLevelDB, width: 24)) \(decibels(snapshot.inputLevelDB))")
        lines.append("  out \(meter(snapshot.outputLevelDB, width: 24)) \(decibels(snapshot.outputLevelDB))")
        if let volume = snapshot.volume { lines.append("  volume \(percent(volume))") }
        if !snapshot.channels.isEmpty {
            let channels = snapshot.channels.map { channel in
                let mark = channel.active ? "*" : " "
                let state = channel.started ? "on" : "off"
                return "\(mark)\(channel.name) \(state) \(percent(channel.volume))"
            }
            lines.append("  channels:" + channels.map { " [\($0)]" }.joined())
        }
        if snapshot.participants.isEmpty { lines.append("  (nobody else yet)") }
        let nameWidth = min(16, snapshot.participants.map(\.participant.rawValue.count).max() ?? 0)
        for (index, participant) in snapshot.participants.enumerated() {
            let whole = line(for: participant, number: index + 1, nameWidth: nameWidth)
            if whole.count <= width {
                lines.append(whole)
            } else {
                // Too wide for one line: the network's figures go on a line of their own.
                lines.append(head(of: participant, number: index + 1, nameWidth: nameWidth))
                lines.append("    " + figures(of: participant))
            }
        }
        lines += keyLines(width: width)
        if !status.isEmpty { lines.append(status) }
        return lines.map { clip($0, to: width) }
    }

    static func line(for participant: ParticipantSnapshot, number: Int, nameWidth: Int) -> String {
        head(of: participant, number: number, nameWidth: nameWidth) + "  " + figures(of: participant)
    }

    /// Who the participant is and how it sounds: number, name, meter, speaking, path, volume.
    static func head(of participant: ParticipantSnapshot, number: Int, nameWidth: Int) -> String {
        let numberLabel = number <= 9 ? "\(number)" : " "
        let name = pad(String(participant.participant.rawValue.prefix(nameWidth)), to: nameWidth)
        let speaking = participant.muted ? "MUTED   " : participant.speaking ? "speaking" : "        "
        var line = "\(numberLabel) \(name) \(meter(participant.levelDB, width: 12)) \(decibels(participant.levelDB))"
        line += " \(speaking) \(participant.path ?? "no path")"
        if participant.volume != 1 { line += "  volume \(percent(participant.volume))" }
        return line
    }

    /// The network's figures: round trip, loss, jitter and buffer.
    static func figures(of participant: ParticipantSnapshot) -> String {
        var line = participant.rttMilliseconds.map { String(format: "rtt %.0f ms  ", $0) } ?? ""
        line += String(
            format: "loss %.1f%%  jitter %.1f ms  buffer %.0f ms", participant.lossFraction * 100,
            participant.jitterMilliseconds, participant.bufferDelayMilliseconds)
        return line
    }

    static func meter(_ level: Float, width: Int) -> String {
        let clamped = min(max(level, floorDB), 0)
        let filled = Int(((clamped - floorDB) / -floorDB * Float(width)).rounded())
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    static func decibels(_ level: Float) -> String {
        level <= SessionSnapshot.silenceDB ? "  -inf dB" : String(format: "%6.1f dB", level)
    }

    static func percent(_ volume: Float) -> String { "\(Int((volume * 100).rounded()))%" }

    static func clock(_ seconds: Double) -> String {
        let whole = Int(max(seconds, 0))
        return String(format: "%d:%02d", whole / 60, whole % 60)
    }

    private static func pad(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func clip(_ text: String, to width: Int) -> String {
        width > 0 && text.count > width ? String(text.prefix(width)) : text
    }
}
