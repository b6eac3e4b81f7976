import Testing
import VoiceSimulation
import VoiceWire

@Suite struct EnvelopeSealingTests {
    let key = SenderKey.random(epoch: 5)
    let channel: ChannelNumber = 2

    func pair() -> (EnvelopeSealer, EnvelopeOpener) {
        var opener = EnvelopeOpener()
        opener.install(key, sender: alice, channel: channel)
        return (EnvelopeSealer(sender: alice, channel: channel, key: key), opener)
    }

    @Test(arguments: SealedContent.allCases)
    func roundTripsEveryContentType(content: SealedContent) throws {
        var (sealer, opener) = pair()
        let plaintext: [UInt8] = (0..<120).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let envelope = try sealEnvelope(&sealer, plaintext, content: content, destination: bob)
        #expect(envelope.count == SealedEnvelopeHeader.encodedBytes + plaintext.count + SealedEnvelopeHeader.tagBytes)
        #expect(Array(envelope[21..<141]) != plaintext, "the body must be encrypted")
        let (header, opened) = try openEnvelope(&opener, envelope)
        #expect(opened == plaintext)
        #expect(
            header
                == SealedEnvelopeHeader(
                    content: content, channel: channel, sender: alice, destination: bob, epoch: 5,
                    counter: 0))
        #expect(opener.statistics.opened == 1 && opener.statistics.refused == 0)
    }

    @Test func countersAdvanceAndEmptyContentSeals() throws {
        var (sealer, opener) = pair()
        for expected in 0..<5 as Range<UInt64> {
            #expect(sealer.nextCounter == expected)
            let envelope = try sealEnvelope(&sealer, [], content: .probe)
            #expect(envelope.count == 37)
            let (header, opened) = try openEnvelope(&opener, envelope)
            #expect(header.counter == expected && opened.isEmpty)
        }
    }

    @Test func sameContentSealsDifferentlyEachTime() throws {
        var (sealer, _) = pair()
        let first = try sealEnvelope(&sealer, [1, 2, 3, 4])
        let second = try sealEnvelope(&sealer, [1, 2, 3, 4])
        #expect(first[21...] != second[21...])
    }

    /// Flips every single bit of an envelope in turn: each forgery is refused with the error of the
    /// first check it fails, none of them moves the replay window, and the genuine envelope still
    /// opens afterwards.
    @Test func everySingleBitFlipIsRefused() throws {
        var (sealer, opener) = pair()
        let envelope = try sealEnvelope(&sealer, Array(repeating: 0x5A, count: 80), destination: 0)
        var expectedStatistics = OpenStatistics()
        for index in envelope.indices {
            for bit in 0..<8 {
                var forged = envelope
                forged[index] ^= 1 << bit
                let expected: SecurityError
                switch index {
                case 0...1:
                    if let wire = wireError(forged) {
                        expected = .wire(wire)
                        expectedStatistics.malformed += 1
                    } else {
                        expected = .authenticationFailed
                        expectedStatistics.authenticationFailures += 1
                    }
                case 2...3:
                    expected = .unknownChannel(
                        sender: alice,
                        channel: ChannelNumber(rawValue: channel.rawValue ^ (index == 2 ? 256 : 1) << bit))
                    expectedStatistics.unknownKey += 1
                case 4...7:
                    expected = .unknownSender(MediaID(rawValue: alice.rawValue ^ 1 << (8 * (7 - index) + bit)))
                    expectedStatistics.unknownKey += 1
                case 12:
                    expected = .unknownEpoch(5 ^ 1 << bit)
                    expectedStatistics.unknownKey += 1
                default:
                    // Destination, counter, ciphertext and tag: only the tag can tell.
                    expected = .authenticationFailed
                    expectedStatistics.authenticationFailures += 1
                }
                #expect(openError(&opener, forged) == expected, "byte \(index) bit \(bit)")
            }
        }
        #expect(opener.statistics == expectedStatistics)
        #expect(expectedStatistics.authenticationFailures > 8 * 80)
        #expect(try openEnvelope(&opener, envelope).plaintext == Array(repeating: 0x5A, count: 80))
    }

    @Test func truncatedEnvelopesAreRefused() throws {
        var (sealer, opener) = pair()
        let envelope = try sealEnvelope(&sealer, Array(repeating: 1, count: 30))
        for length in 0..<envelope.count {
            let expected: SecurityError =
                switch length {
                case 0: .wire(.truncatedHeader(needed: 1, available: 0))
                case 1..<37: .wire(.envelopeTooShort(bytes: length, needed: 37))
                default: .authenticationFailed
                }
            #expect(openError(&opener, Array(envelope[0..<length])) == expected, "length \(length)")
        }
        #expect(opener.statistics.malformed == 37)
        #expect(opener.statistics.authenticationFailures == envelope.count - 37)
        // Bytes appended after the tag shift it: also refused.
        #expect(openError(&opener, envelope + [0]) == .authenticationFailed)
        #expect(try openEnvelope(&opener, envelope).plaintext.count == 30)
    }

    @Test func replayIsRefused() throws {
        var (sealer, opener) = pair()
        let envelope = try sealEnvelope(&sealer, [1, 2, 3])
        _ = try openEnvelope(&opener, envelope)
        #expect(openError(&opener, envelope) == .replayed(counter: 0))
        #expect(openError(&opener, envelope) == .replayed(counter: 0))
        #expect(opener.statistics.opened == 1 && opener.statistics.replays == 2)
    }

    @Test func reorderedWithinTheWindowOpensOnce() throws {
        var (sealer, opener) = pair()
        var envelopes = try (0..<300).map { index in try sealEnvelope(&sealer, [UInt8(truncatingIfNeeded: index)]) }
        var random = SeededRandom(seed: 7)
        envelopes.shuffle(using: &random)
        for envelope in envelopes { _ = try openEnvelope(&opener, envelope) }
        for envelope in envelopes.prefix(50) {
            let counter = try envelope.withUnsafeBytes { try SealedEnvelopeHeader(parsing: $0) }.counter
            #expect(openError(&opener, envelope) == .replayed(counter: counter))
        }
        #expect(opener.statistics.opened == 300 && opener.statistics.replays == 50)
    }

    @Test func olderThanTheWindowIsRefused() throws {
        var (sealer, opener) = pair()
        let envelopes = try (0..<1100).map { _ in try sealEnvelope(&sealer, [9]) }
        _ = try openEnvelope(&opener, envelopes[1099])
        #expect(openError(&opener, envelopes[0]) == .tooOld(counter: 0))
        #expect(openError(&opener, envelopes[75]) == .tooOld(counter: 75))
        // 1099 - 76 = 1023: the oldest counter the window still remembers.
        #expect(try openEnvelope(&opener, envelopes[76]).header.counter == 76)
        #expect(opener.statistics.tooOld == 2 && opener.statistics.opened == 2)
    }

    @Test func unknownSenderChannelAndEpochAreRefused() throws {
        var (sealer, opener) = pair()
        var stranger = EnvelopeSealer(sender: carol, channel: channel, key: .random(epoch: 5))
        #expect(openError(&opener, try sealEnvelope(&stranger, [1])) == .unknownSender(carol))

        var otherChannel = EnvelopeSealer(sender: alice, channel: 3, key: key)
        #expect(
            openError(&opener, try sealEnvelope(&otherChannel, [1]))
                == .unknownChannel(sender: alice, channel: 3))

        sealer.install(.random(epoch: 6))
        #expect(openError(&opener, try sealEnvelope(&sealer, [1])) == .unknownEpoch(6))
        #expect(opener.statistics.unknownKey == 3 && opener.statistics.refused == 3)

        opener.remove(sender: alice)
        var original = EnvelopeSealer(sender: alice, channel: channel, key: key)
        #expect(openError(&opener, try sealEnvelope(&original, [1])) == .unknownSender(alice))
    }

    @Test func removingOneChannelKeepsTheOthers() throws {
        var (sealer, opener) = pair()
        opener.install(key, sender: alice, channel: 9)
        opener.remove(sender: alice, channel: 9)
        _ = try openEnvelope(&opener, try sealEnvelope(&sealer, [1]))
        opener.remove(sender: alice, channel: channel)
        #expect(openError(&opener, try sealEnvelope(&sealer, [1])) == .unknownSender(alice))
    }

    @Test func aDifferentKeyWithTheSameEpochFailsAuthentication() throws {
        var (_, opener) = pair()
        var impostor = EnvelopeSealer(sender: alice, channel: channel, key: .random(epoch: 5))
        #expect(openError(&opener, try sealEnvelope(&impostor, [1, 2])) == .authenticationFailed)
    }

    @Test func buffersTooSmallAreRefused() throws {
        var (sealer, opener) = pair()
        let plaintext = [UInt8](repeating: 3, count: 50)
        var small = [UInt8](repeating: 0, count: 86)
        #expect(throws: SecurityError.bufferTooSmall(needed: 87, available: 86)) {
            try small.withUnsafeMutableBytes { output in
                try plaintext.withUnsafeBytes { try sealer.seal(.voice, destination: 0, plaintext: $0, into: output) }
            }
        }
        #expect(sealer.nextCounter == 0, "a refused seal must not use up a counter")
        let envelope = try sealEnvelope(&sealer, plaintext)
        var tooSmall = [UInt8](repeating: 0, count: 49)
        #expect(throws: SecurityError.bufferTooSmall(needed: 50, available: 49)) {
            try envelope.withUnsafeBytes { input in
                try tooSmall.withUnsafeMutableBytes { try opener.open(input, into: $0) }
            }
        }
        #expect(opener.statistics.outputTooSmall == 1)
        #expect(try openEnvelope(&opener, envelope).plaintext == plaintext, "a refused open must not move the window")
    }

    /// A voice packet written straight after the header's space and sealed where it lies.
    @Test func sealsInPlace() throws {
        var (sealer, opener) = pair()
        var buffer = [UInt8](repeating: 0, count: 1300)
        let primary: [UInt8] = Array(1...60)
        let envelopeBytes = try buffer.withUnsafeMutableBytes { output in
            let packetArea = UnsafeMutableRawBufferPointer(rebasing: output[21...])
            let packetBytes = try primary.withUnsafeBytes { bytes in
                try VoicePacketWriter.write(
                    flags: [.speaking], channel: channel, sender: alice, sequence: 11, timestamp: 960,
                    primary: bytes, into: packetArea)
            }
            return try sealer.seal(
                .voice, destination: 0, plaintext: UnsafeRawBufferPointer(rebasing: packetArea[0..<packetBytes]),
                into: output)
        }
        let (header, opened) = try openEnvelope(&opener, Array(buffer[0..<envelopeBytes]))
        #expect(header.content == .voice)
        let view = try opened.withUnsafeBytes { try VoicePacketView(parsing: $0) }
        #expect(view.sequence == 11 && Array(opened[view.primary]) == primary)
    }

    @Test func descriptionsSayWhatWasWrong() {
        #expect(SecurityError.replayed(counter: 42).description.contains("42"))
        #expect(SecurityError.unknownEpoch(7).description.contains("epoch 7"))
        #expect(SecurityError.invalidKeyLength(31).description.contains("31 bytes"))
        #expect(SecurityError.wire(.unknownSealedContent(9)).description.contains("unknown content type 9"))
        #expect(SecurityError.counterExhausted.description.contains("rekey"))
    }

    private func wireError(_ bytes: [UInt8]) -> WireError? {
        do {
            _ = try bytes.withUnsafeBytes { try SealedEnvelopeHeader(parsing: $0) }
            return nil
        } catch let error as WireError {
            return error
        } catch {
            return nil
        }
    }
}
