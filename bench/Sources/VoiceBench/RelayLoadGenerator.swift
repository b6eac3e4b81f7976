import Histogram
import NIOCore
import NIOPosix
import VoiceCore
import VoiceRelay
import VoiceRelayClient
import VoiceWire

/// Simulated participants on real UDP sockets: each sends a 120-byte envelope every 20 ms (voice
/// at 50 packets/s) carrying its send time, and records the delay of every copy it receives.
///
/// Thread contract: everything runs on the generator's one event loop; the recorder is confined there.
final class LoadRecorder {
    var histogram = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
    /// Only packets stamped inside [windowStart, windowEnd) count, wherever they arrive.
    var windowStart = UInt64.max
    var windowEnd = UInt64.max
    var received = 0
    var sent = 0
    var joined = Set<Int>()
}

final class LoadHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    private let index: Int
    private let recorder: LoadRecorder

    init(index: Int, recorder: LoadRecorder) {
        self.index = index
        self.recorder = recorder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data).data
        guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return }
        if first & 0x0F == WireMessageType.relay.rawValue {
            if buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self) == RelayMessageKind.joined.rawValue {
                recorder.joined.insert(index)
            }
            return
        }
        guard
            let sentAt = buffer.getInteger(at: buffer.readerIndex + SealedEnvelopeHeader.encodedBytes, as: UInt64.self)
        else { return }
        guard sentAt >= recorder.windowStart, sentAt < recorder.windowEnd else { return }
        recorder.received += 1
        let now = NIODeadline.now().uptimeNanoseconds
        _ = recorder.histogram.record(now > sentAt ? now - sentAt : 0)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}

struct LoadResult {
    var sent: Int
    var received: Int
    var seconds: Double
    var p50Microseconds: Double
    var p99Microseconds: Double
    var maxMicroseconds: Double
}

/// Drives one load level against a relay or the echo server.
struct RelayLoadGenerator {
    static let envelopeBytes = 120
    let participants: Int
    let port: Int
    let secret: RelaySecret?
    let group: any EventLoopGroup

    /// An address of its own for each simulated participant, as players have, in 127.0.0.0/8
    /// (all of it loopback on Linux): the relay limits the joins and connections of one address.
    static func loopbackHost(of participant: Int) -> String {
        "127.\(1 + participant / 62_500).\(participant / 250 % 250).\(participant % 250 + 1)"
    }

    /// Group sizes cycle 5, 6, 7, 8: each group is one match talking in channel 1.
    static func groupSizes(participants: Int) -> [Int] {
        var sizes: [Int] = []
        var remaining = participants
        var next = 5
        while remaining > 0 {
            let size = min(next, remaining)
            sizes.append(size)
            remaining -= size
            next = next == 8 ? 5 : next + 1
        }
        return sizes
    }

    /// Copies the relay should forward per second: 50 × (group size − 1) per member.
    static func expectedForwardedPerSecond(participants: Int) -> Double {
        groupSizes(participants: participants).reduce(0.0) { $0 + 50 * Double($1 * ($1 - 1)) }
    }

    /// Joins (relay), warms up, measures for `seconds`, and stops. `atMeasureStart`/`atMeasureEnd` run
    /// on the calling task around the measurement window (the caller samples the server's CPU there).
    func run(
        warmup: Double, seconds: Double, echo: Bool, atMeasureStart: () -> Void, atMeasureEnd: () -> Void,
        during: ((Double) -> Void)? = nil
    ) async throws -> LoadResult {
        let loop = group.next()
        let recorder = NIOLoopBoundBox.makeBoxSendingValue(LoadRecorder(), eventLoop: loop)
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        var channels: [any Channel] = []
        var headers: [[UInt8]] = []
        var joins: [[UInt8]] = []
        var participantIndex = 0
        for (group, size) in Self.groupSizes(participants: participants).enumerated() {
            for _ in 0..<size {
                let participant = "p\(participantIndex)"
                let match = "m\(group)"
                var header = [UInt8](repeating: 0, count: SealedEnvelopeHeader.encodedBytes)
                header.withUnsafeMutableBytes {
                    try? SealedEnvelopeHeader(
                        content: .voice, channel: 1, sender: ParticipantID(participant).mediaID,
                        destination: 0, epoch: 0, counter: 0
                    ).write(into: $0)
                }
                headers.append(header)
                if let secret {
                    let token = try RelayToken.sign(
                        match: match, participant: participant, expiry: UInt64.max / 2, secret: secret)
                    joins.append(
                        try RelayMessage.join(
                            RelayJoin(token: token.text, participant: participant, channels: [1], muted: [])
                        ).serialized())
                }
                let index = participantIndex
                // Vector reads: when the generator falls behind, each wake-up of a socket takes
                // everything queued on it in one system call instead of one call per copy.
                let channel = try await DatagramBootstrap(group: loop)
                    .channelOption(.socketOption(.so_rcvbuf), value: 1 << 20)
                    .channelOption(.datagramVectorReadMessageCount, value: 16)
                    .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 16 * 256))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                LoadHandler(index: index, recorder: recorder.value))
                        }
                    }
                    .bind(host: Self.loopbackHost(of: participantIndex), port: 0).get()
                channels.append(channel)
                participantIndex += 1
            }
        }
        let joinChannels = channels
        if !echo {
            for attempt in 0..<10 {
                let missing = try await loop.submit {
                    (0..<joinChannels.count).filter { !recorder.value.joined.contains($0) }
                }.get()
                if missing.isEmpty { break }
                if attempt == 9 { throw LoadError.joinsFailed(missing: missing.count) }
                for index in missing {
                    send(joins[index], on: channels[index], to: target)
                }
                try await Task.sleep(for: .milliseconds(attempt == 0 ? 300 : 1000))
            }
        }
        // Participant i sends in millisecond slot i % 20 of every 20 ms period; the tick catches up
        // on slots it missed, so a late tick sends a burst rather than less.
        let start = NIODeadline.now().uptimeNanoseconds
        let sendingChannels = channels
        let sendingHeaders = headers
        let nextSlot = NIOLoopBoundBox.makeBoxSendingValue(0, eventLoop: loop)
        let ticker = loop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(1)) { _ in
            let now = NIODeadline.now().uptimeNanoseconds
            let dueSlot = Int((now - start) / 1_000_000)
            while nextSlot.value <= dueSlot {
                let phase = nextSlot.value % 20
                var index = phase
                while index < sendingChannels.count {
                    let channel = sendingChannels[index]
                    var buffer = channel.allocator.buffer(capacity: Self.envelopeBytes)
                    buffer.writeBytes(sendingHeaders[index])
                    let stamp = NIODeadline.now().uptimeNanoseconds
                    buffer.writeInteger(stamp)
                    buffer.writeRepeatingByte(0xAB, count: Self.envelopeBytes - buffer.readableBytes)
                    channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: buffer), promise: nil)
                    if stamp >= recorder.value.windowStart, stamp < recorder.value.windowEnd {
                        recorder.value.sent += 1
                    }
                    index += 20
                }
                nextSlot.value += 1
            }
        }
        try await Task.sleep(for: .milliseconds(Int(warmup * 1000)))
        let measureStart = try await loop.submit {
            let now = NIODeadline.now().uptimeNanoseconds
            recorder.value.windowStart = now
            return now
        }.get()
        atMeasureStart()
        if let during {
            var elapsed = 0.0
            while elapsed < seconds {
                try await Task.sleep(for: .seconds(1))
                elapsed += 1
                during(elapsed)
            }
        } else {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        }
        let measureEnd = try await loop.submit {
            let now = NIODeadline.now().uptimeNanoseconds
            recorder.value.windowEnd = now
            return now
        }.get()
        atMeasureEnd()
        let measured = Double(measureEnd - measureStart) / 1e9
        ticker.cancel()
        // Copies stamped inside the window that are still in flight count when they land.
        try await Task.sleep(for: .milliseconds(300))
        let result = try await loop.submit {
            let value = recorder.value
            value.windowStart = .max
            return LoadResult(
                sent: value.sent, received: value.received, seconds: measured,
                p50Microseconds: Double(value.histogram.valueAtPercentile(50)) / 1000,
                p99Microseconds: Double(value.histogram.valueAtPercentile(99)) / 1000,
                maxMicroseconds: Double(value.histogram.max) / 1000)
        }.get()
        for channel in channels { try? await channel.close() }
        return result
    }

    private func send(_ bytes: [UInt8], on channel: any Channel, to target: SocketAddress) {
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: buffer), promise: nil)
    }
}

enum LoadError: Error, CustomStringConvertible {
    case joinsFailed(missing: Int)
    case childFailed(String)

    var description: String {
        switch self {
        case .joinsFailed(let missing): "\(missing) simulated participants could not join the relay"
        case .childFailed(let what): "the process under test failed: \(what)"
        }
    }
}
