import VoiceCodec
import VoiceCore
import VoiceMedia
import VoiceWire

/// A one-way call in virtual time: a sender engine encodes a recording frame by frame, its
/// packets cross a simulated network, and a listener plays them out; receiver reports travel
/// back through a second simulated network and steer the sender's protection.
///
/// Everything is driven by one loop over the listener's playout ticks, so a 30-second call runs
/// in a fraction of a second and gives the same bytes for the same seed. What the listener
/// played is returned on the capture timeline (sample n of `heard` was played n / 48 000 s after
/// the sender captured sample 0), so the delay the call added can be measured by alignment.
public enum CallSimulation {
    public enum Receiver: String, Sendable, CaseIterable {
        /// The engine's receive stream: adaptive jitter buffer, redundancy, FEC, PLC.
        case engine
        /// The reference: speexdsp's jitter buffer and Opus packet-loss concealment only.
        case baseline
    }

    public struct Configuration: Sendable {
        public var conditions: NetworkConditions
        /// The path receiver reports take back to the sender; by default the same conditions.
        public var reverseConditions: NetworkConditions?
        public var seed: UInt64
        public var frameDuration: FrameDuration
        public var bitrate: Int
        public var complexity: Int
        /// How much faster the sender's clock runs than the listener's, in parts per million.
        public var driftPPM: Double
        public var receiver: Receiver
        /// How often the listener reports to the sender, when no loss asks for a report sooner.
        public var reportIntervalMilliseconds: Double
        /// How long the listener keeps playing after the recording ends, so buffered audio comes
        /// out. The default covers the sender's last keep-alive (400 ms after its last speech)
        /// played at the jitter buffer's 200 ms ceiling, so every packet sent is accounted for.
        public var tailMilliseconds: Double
        public var jitterBuffer: JitterBufferConfiguration
        /// What the sender does to the speech before encoding it: off by default, as shipped.
        public var speechProcessing: SpeechProcessing

        public init(
            conditions: NetworkConditions = NetworkConditions(),
            reverseConditions: NetworkConditions? = nil,
            seed: UInt64 = 1,
            frameDuration: FrameDuration = VoiceDefaults.frameDuration,
            bitrate: Int = VoiceDefaults.bitrate,
            complexity: Int = VoiceDefaults.complexity,
            driftPPM: Double = 0,
            receiver: Receiver = .engine,
            reportIntervalMilliseconds: Double = 500,
            tailMilliseconds: Double = 1_000,
            jitterBuffer: JitterBufferConfiguration? = nil,
            speechProcessing: SpeechProcessing = SpeechProcessing()
        ) {
            self.conditions = conditions
            self.reverseConditions = reverseConditions
            self.seed = seed
            self.frameDuration = frameDuration
            self.bitrate = bitrate
            self.complexity = complexity
            self.driftPPM = driftPPM
            self.receiver = receiver
            self.reportIntervalMilliseconds = reportIntervalMilliseconds
            self.tailMilliseconds = tailMilliseconds
            var buffer = jitterBuffer ?? JitterBufferConfiguration()
            buffer.frameDuration = frameDuration
            self.jitterBuffer = buffer
            self.speechProcessing = speechProcessing
        }
    }

    public struct Result: Sendable {
        /// What the listener played, 48 kHz mono, on the capture timeline.
        public var heard: [Float]
        public var receive: ReceiveStatistics
        public var send: SendStatistics
        public var network: NetworkStatistics
        /// The listener's buffer delay after each played frame, in milliseconds.
        public var bufferDelayTrace: [Float]
        /// Seconds of audio the call carried.
        public var audioSeconds: Double
        public var frameDuration: FrameDuration

        /// The buffer delay trace as CSV (`seconds,buffer_delay_ms`), one row per played frame.
        public var bufferDelayCSV: String {
            var text = "seconds,buffer_delay_ms\n"
            for (index, delay) in bufferDelayTrace.enumerated() {
                text += "\(Double(index) * frameDuration.milliseconds / 1_000),\(delay)\n"
            }
            return text
        }
    }

    static let senderID: MediaID = 1
    static let listenerID: MediaID = 2
    static let channel: ChannelNumber = 0

    /// Runs the call over `input` (48 kHz mono samples).
    public static func run(input: [Float], configuration: Configuration) throws -> Result {
        let frameFrames = configuration.frameDuration.engineFrames
        let frameNanoseconds = configuration.frameDuration.nanoseconds
        var sendConfiguration = SendConfiguration(sender: senderID, channel: channel)
        sendConfiguration.frameDuration = configuration.frameDuration
        sendConfiguration.bitrate = configuration.bitrate
        sendConfiguration.complexity = configuration.complexity
        sendConfiguration.speechProcessing = configuration.speechProcessing
        let sender = try VoiceSendPipeline(sendConfiguration)
        let listener: any SimulatedListener
        switch configuration.receiver {
        case .engine:
            listener = try VoiceReceiveStream(
                sender: senderID, channel: channel, configuration: configuration.jitterBuffer)
        case .baseline:
            listener = try BaselineReceiver(
                sender: senderID, channel: channel, frameDuration: configuration.frameDuration)
        }
        let forward = SimulatedNetwork(conditions: configuration.conditions, seed: configuration.seed)
        let reverse = SimulatedNetwork(
            conditions: configuration.reverseConditions ?? configuration.conditions,
            seed: configuration.seed &+ 0x9E37_79B9_7F4A_7C15)

        let senderFrames = input.count / frameFrames
        let tailFrames = Int(configuration.tailMilliseconds / configuration.frameDuration.milliseconds)
        let ticks = senderFrames + tailFrames
        var heard = [Float](repeating: 0, count: ticks * frameFrames)
        var trace = [Float]()
        trace.reserveCapacity(ticks)
        let packet = UnsafeMutableRawBufferPointer.allocate(
            byteCount: VoicePacketWriter.maximumPacketBytes, alignment: 8)
        let report = UnsafeMutableRawBufferPointer.allocate(byteCount: ReceiverReport.encodedBytes, alignment: 8)
        let silence = [Float](repeating: 0, count: frameFrames)
        defer {
            packet.deallocate()
            report.deallocate()
        }

        // The sender's frame k is captured at k frames of *its* clock, which runs
        // (1 + drift) times as fast as the listener's.
        let senderRate = 1 + configuration.driftPPM / 1_000_000
        func captureTime(ofFrame frame: Int) -> MediaTime {
            MediaTime((Double(frame) * Double(frameNanoseconds) / senderRate).rounded())
        }
        var reports = ReportSchedule(
            interval: MediaTime.milliseconds(configuration.reportIntervalMilliseconds), start: 0)
        var nextSenderFrame = 0

        try input.withUnsafeBufferPointer { input in
            try heard.withUnsafeMutableBufferPointer { heard in
                for tick in 0..<ticks {
                    let now = MediaTime(tick) * frameNanoseconds
                    // The sender captures and sends every frame due by now; after the recording
                    // it keeps capturing silence, as a live microphone would.
                    while captureTime(ofFrame: nextSenderFrame) <= now, nextSenderFrame < ticks {
                        let captured = captureTime(ofFrame: nextSenderFrame)
                        let byteCount: Int
                        if nextSenderFrame < senderFrames {
                            let start = nextSenderFrame * frameFrames
                            byteCount = try sender.process(
                                UnsafeBufferPointer(rebasing: input[start..<start + frameFrames]), at: captured,
                                into: packet)
                        } else {
                            byteCount = try silence.withUnsafeBufferPointer { frame in
                                try sender.process(frame, at: captured, into: packet)
                            }
                        }
                        if byteCount > 0 {
                            forward.send(UnsafeRawBufferPointer(rebasing: packet[0..<byteCount]), at: captured)
                        }
                        nextSenderFrame += 1
                    }
                    forward.deliver(until: now) { datagram, arrival in
                        // A datagram the parser refuses is the listener's to count; here the
                        // network is the simulator's own, so every datagram parses.
                        guard let view = try? VoicePacketView(parsing: datagram) else { return }
                        listener.insert(view, bytes: datagram, arrival: arrival)
                    }
                    let start = tick * frameFrames
                    listener.pullFrame(
                        into: UnsafeMutableBufferPointer(rebasing: heard[start..<start + frameFrames]), at: now)
                    trace.append(Float(listener.statistics.currentDelayMilliseconds))

                    // The baseline sends no reports: its sender stays unprotected, as a plain
                    // client's would, instead of spending bits on FEC and redundancy it never uses.
                    if configuration.receiver == .engine,
                        reports.isDue(at: now, unrepairableLoss: listener.hasUnrepairableLoss)
                    {
                        reports.reported(at: now)
                        let byteCount = try listener.makeReport(reporter: listenerID).write(into: report)
                        reverse.send(UnsafeRawBufferPointer(rebasing: report[0..<byteCount]), at: now)
                    }
                    reverse.deliver(until: now) { datagram, _ in
                        guard let received = try? ReceiverReport(parsing: datagram) else { return }
                        sender.apply(received)
                    }
                }
            }
        }
        return Result(
            heard: heard, receive: listener.statistics, send: sender.statistics, network: forward.statistics,
            bufferDelayTrace: trace, audioSeconds: Double(senderFrames * frameFrames) / Double(engineSampleRate),
            frameDuration: configuration.frameDuration)
    }
}
