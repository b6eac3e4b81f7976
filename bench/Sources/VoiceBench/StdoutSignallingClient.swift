import Foundation
import Synchronization
import VoiceCore
import VoiceEngine

/// Writes whole lines to standard output, one writer at a time, unbuffered: the latency
/// benchmark's parent reads a peer's messages line by line as they come.
final class LineWriter: Sendable {
    private let lock = Mutex<Void>(())

    func write(_ line: String) {
        lock.withLock { _ in
            try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
        }
    }
}

/// A peer's signalling channel in the latency benchmark: the benchmark plays the embedding app
/// and carries each message to the other peer, one `signal <base64>` line per message, over the
/// peers' standard input and output.
final class StdoutSignallingClient: VoiceChatClient {
    let participantID: ParticipantID
    private let writer: LineWriter

    init(participant: ParticipantID, writer: LineWriter) {
        participantID = participant
        self.writer = writer
    }

    func send(_ data: [UInt8], to participant: ParticipantID) {
        writer.write("signal " + Data(data).base64EncodedString())
    }
}
