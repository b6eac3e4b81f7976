import ArgumentParser
import Foundation
import VoiceWire

/// `bench/run seal`: what sealing costs per voice packet, against the same packets unsealed.
///
/// The unsealed side writes a voice packet with `VoicePacketWriter` and parses it with
/// `VoicePacketView`, as the media path does. The sealed side writes the same packet at the
/// envelope's body offset, seals it there (`EnvelopeSealer`), then opens it (`EnvelopeOpener`,
/// replay window included) and parses the plaintext. Batches of each alternate within every
/// repetition and the medians are reported, so drift in machine load hits both alike.
struct SealBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seal",
        abstract: "µs and allocations per ChaCha20-Poly1305 seal/open of voice packets against unsealed write/parse."
    )

    @Option(help: "Packets per timed batch.")
    var batch = 2_000

    @Option(help: "Repetitions of each batch, alternating sealed and unsealed (odd, for a clean median).")
    var repetitions = 21

    @Option(parsing: .upToNextOption, help: "Voice packet sizes in bytes (the plaintext of an envelope).")
    var sizes = [80, 160]

    func validate() throws {
        guard batch > 0, repetitions >= 3 else {
            throw ValidationError("--batch must be positive and --repetitions at least 3")
        }
        guard
            sizes.allSatisfy({ $0 > VoicePacketWriter.fixedHeaderBytes && $0 <= VoicePacketWriter.maximumPacketBytes })
        else {
            throw ValidationError(
                "--sizes must lie in \(VoicePacketWriter.fixedHeaderBytes + 1)...\(VoicePacketWriter.maximumPacketBytes)"
            )
        }
    }

    func run() throws {
        var report = BenchmarkReport(bench: "seal")
        let counting = AllocationCounter.isActive()
        report.require(
            counting, "allocation counting is inactive: run through bench/run, which preloads the interposer")
        for size in sizes {
            let runner = SealCaseRunner(packetBytes: size, batch: batch)
            defer { runner.deallocate() }
            var times = [String: [Double]]()
            for repetition in 0..<repetitions {
                let order = repetition % 2 == 0 ? [false, true] : [true, false]
                for sealed in order {
                    let (send, receive) = try sealed ? runner.sealedBatch() : runner.unsealedBatch()
                    let side = sealed ? "sealed" : "unsealed"
                    times["send \(side)", default: []].append(send)
                    times["receive \(side)", default: []].append(receive)
                }
            }
            let sendSealed = median(times["send sealed"]!)
            let sendPlain = median(times["send unsealed"]!)
            let receiveSealed = median(times["receive sealed"]!)
            let receivePlain = median(times["receive unsealed"]!)
            report.add(
                "\(size) B write+seal", sendSealed, unit: "µs/packet", baseline: sendPlain)
            report.add(
                "\(size) B open+parse", receiveSealed, unit: "µs/packet", baseline: receivePlain)
            report.add(
                "\(size) B round trip", sendSealed + receiveSealed, unit: "µs/packet",
                baseline: sendPlain + receivePlain)
            report.add("\(size) B seal cost", sendSealed - sendPlain, unit: "µs/packet")
            report.add("\(size) B open cost", receiveSealed - receivePlain, unit: "µs/packet")

            let allocations = try runner.allocationsPerPacket()
            report.add(
                "\(size) B allocations write+seal", allocations.seal, unit: "allocs/packet",
                baseline: allocations.write, target: .atMost(0))
            report.add(
                "\(size) B allocations open+parse", allocations.open, unit: "allocs/packet",
                baseline: allocations.parse, target: .atMost(0))
            report.require(
                allocations.write == 0 && allocations.parse == 0,
                "the unsealed path allocated (\(allocations.write) per write, \(allocations.parse) per parse)")
            report.require(
                runner.refused == 0, "\(runner.refused) envelopes of \(size) B failed to open")
        }
        if !report.finish() { throw ExitCode.failure }
    }
}

/// The buffers and keys of one packet size. Everything is allocated here, before timing.
private final class SealCaseRunner {
    let packetBytes: Int
    let batch: Int
    let primary: UnsafeMutableRawBufferPointer
    /// One slot per packet of a batch, each large enough for an envelope of the largest packet.
    let slots: UnsafeMutableRawBufferPointer
    let plaintext: UnsafeMutableRawBufferPointer
    let slotBytes = 1_300
    var sealer: EnvelopeSealer
    var opener = EnvelopeOpener()
    var sequence: UInt16 = 0
    /// Folded from every parsed packet, so the optimiser cannot drop the parses.
    var checksum = 0

    init(packetBytes: Int, batch: Int) {
        self.packetBytes = packetBytes
        self.batch = batch
        primary = .allocate(byteCount: packetBytes - VoicePacketWriter.fixedHeaderBytes, alignment: 8)
        for index in primary.indices { primary[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        slots = .allocate(byteCount: slotBytes * batch, alignment: 8)
        slots.initializeMemory(as: UInt8.self, repeating: 0)
        plaintext = .allocate(byteCount: slotBytes, alignment: 8)
        plaintext.initializeMemory(as: UInt8.self, repeating: 0)
        let sender = MediaID(participant: "bench-sender")
        let key = SenderKey.random(epoch: 1)
        sealer = EnvelopeSealer(sender: sender, channel: 1, key: key)
        opener.install(key, sender: sender, channel: 1)
    }

    func deallocate() {
        primary.deallocate()
        slots.deallocate()
        plaintext.deallocate()
    }

    var refused: Int { opener.statistics.refused }

    private func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: slots[(index * slotBytes)..<((index + 1) * slotBytes)])
    }

    @inline(__always)
    private func writePacket(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        sequence &+= 1
        return try VoicePacketWriter.write(
            flags: [.speaking], channel: 1, sender: 0x1234_5678, sequence: sequence, timestamp: UInt32(sequence) * 960,
            primary: UnsafeRawBufferPointer(primary), into: buffer)
    }

    @inline(__always)
    private func parse(_ bytes: UnsafeRawBufferPointer) throws {
        let view = try VoicePacketView(parsing: bytes)
        checksum &+= Int(view.sequence) &+ view.primary.count
    }

    /// µs per packet to write `batch` packets, then to parse them.
    func unsealedBatch() throws -> (send: Double, receive: Double) {
        try timed(send: writeBatch, receive: parseBatch)
    }

    /// µs per packet to write and seal `batch` packets in place, then to open and parse them.
    func sealedBatch() throws -> (send: Double, receive: Double) {
        try timed(send: sealBatch, receive: openBatch)
    }

    /// Allocations per packet on this thread for each step, counted over one batch.
    func allocationsPerPacket() throws -> (write: Double, parse: Double, seal: Double, open: Double) {
        (try counted(writeBatch), try counted(parseBatch), try counted(sealBatch), try counted(openBatch))
    }

    private func timed(send: () throws -> Void, receive: () throws -> Void) throws -> (send: Double, receive: Double) {
        let start = monotonicNanoseconds()
        try send()
        let sent = monotonicNanoseconds()
        try receive()
        let received = monotonicNanoseconds()
        return (perPacket(sent - start), perPacket(received - sent))
    }

    private func counted(_ step: () throws -> Void) throws -> Double {
        AllocationCounter.start(threads: [pthread_self()])
        try step()
        return Double(AllocationCounter.stop()) / Double(batch)
    }

    // The steps, each over one batch: the timed code and the counted code are the same.

    private func writeBatch() throws {
        var lengths = 0
        for index in 0..<batch { lengths &+= try writePacket(into: slot(index)) }
        precondition(lengths == batch * packetBytes)
    }

    private func parseBatch() throws {
        for index in 0..<batch {
            try parse(UnsafeRawBufferPointer(rebasing: slot(index)[0..<packetBytes]))
        }
    }

    private func sealBatch() throws {
        let bodyOffset = SealedEnvelopeHeader.encodedBytes
        let envelopeBytes = SealedEnvelopeHeader.envelopeBytes(plaintextBytes: packetBytes)
        for index in 0..<batch {
            let output = slot(index)
            let written = try writePacket(into: UnsafeMutableRawBufferPointer(rebasing: output[bodyOffset...]))
            let sealedBytes = try sealer.seal(
                .voice, destination: 0,
                plaintext: UnsafeRawBufferPointer(rebasing: output[bodyOffset..<(bodyOffset + written)]),
                into: output)
            precondition(sealedBytes == envelopeBytes)
        }
    }

    private func openBatch() throws {
        let envelopeBytes = SealedEnvelopeHeader.envelopeBytes(plaintextBytes: packetBytes)
        for index in 0..<batch {
            let opened = try opener.open(
                UnsafeRawBufferPointer(rebasing: slot(index)[0..<envelopeBytes]), into: plaintext)
            try parse(UnsafeRawBufferPointer(rebasing: plaintext[0..<opened.plaintextBytes]))
        }
    }

    private func perPacket(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds) / 1_000 / Double(batch)
    }
}
