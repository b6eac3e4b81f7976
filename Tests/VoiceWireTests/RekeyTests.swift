import Testing

@testable import VoiceWire

@Suite struct RekeyTests {
    let channel: ChannelNumber = 1

    /// The switch as the contract describes it: members get epoch 1 while the sender still seals
    /// under 0, then the sender switches; envelopes of both epochs open, in any order, so no
    /// audio is lost.
    @Test func bothEpochsOpenDuringTheSwitch() throws {
        let first = SenderKey.random(epoch: 0)
        let second = SenderKey.random(epoch: 1)
        var sealer = EnvelopeSealer(sender: alice, channel: channel, key: first)
        var opener = EnvelopeOpener()
        opener.install(first, sender: alice, channel: channel)

        let early = try (0..<3).map { _ in try sealEnvelope(&sealer, [0]) }
        _ = try openEnvelope(&opener, early[0])
        opener.install(second, sender: alice, channel: channel)
        #expect(opener.epochs(sender: alice, channel: channel) == [1, 0])
        let stillOld = try sealEnvelope(&sealer, [0])

        sealer.install(second)
        #expect(sealer.epoch == 1 && sealer.nextCounter == 0)
        let new = try (0..<3).map { _ in try sealEnvelope(&sealer, [1]) }

        // New envelopes overtake old ones in the network; every one opens, counter 0 under both keys.
        #expect(try openEnvelope(&opener, new[0]).header.epoch == 1)
        #expect(try openEnvelope(&opener, early[2]).header.epoch == 0)
        #expect(try openEnvelope(&opener, new[2]).header.counter == 2)
        #expect(try openEnvelope(&opener, stillOld).header.counter == 3)
        #expect(try openEnvelope(&opener, early[1]).header.counter == 1)
        #expect(try openEnvelope(&opener, new[1]).header.counter == 1)
        #expect(opener.statistics.opened == 7 && opener.statistics.refused == 0)
        // Each epoch keeps its own window.
        #expect(openError(&opener, early[0]) == .replayed(counter: 0))
        #expect(openError(&opener, new[0]) == .replayed(counter: 0))
    }

    @Test func anEpochBeforeThePreviousIsRefused() throws {
        let keys = (0..<3).map { SenderKey.random(epoch: UInt8($0)) }
        var sealers = keys.map { EnvelopeSealer(sender: alice, channel: channel, key: $0) }
        var opener = EnvelopeOpener()
        for key in keys { opener.install(key, sender: alice, channel: channel) }
        #expect(opener.epochs(sender: alice, channel: channel) == [2, 1])
        #expect(openError(&opener, try sealEnvelope(&sealers[0], [0])) == .unknownEpoch(0))
        #expect(try openEnvelope(&opener, try sealEnvelope(&sealers[1], [1])).header.epoch == 1)
        #expect(try openEnvelope(&opener, try sealEnvelope(&sealers[2], [2])).header.epoch == 2)
        #expect(opener.statistics.unknownKey == 1)
    }

    @Test func epochsWrapFrom255To0() throws {
        let last = SenderKey.random(epoch: 255)
        let wrapped = SenderKey.random(epoch: 0)
        var sealer = EnvelopeSealer(sender: alice, channel: channel, key: last)
        var opener = EnvelopeOpener()
        opener.install(last, sender: alice, channel: channel)
        let old = try sealEnvelope(&sealer, [1])
        opener.install(wrapped, sender: alice, channel: channel)
        sealer.install(wrapped)
        #expect(try openEnvelope(&opener, try sealEnvelope(&sealer, [2])).header.epoch == 0)
        #expect(try openEnvelope(&opener, old).header.epoch == 255)
    }

    /// Signalling may deliver a key twice; that must neither reset a replay window (receiver) nor
    /// a counter (sender), or a replay would open and a nonce would repeat.
    @Test func repeatedInstallsChangeNothing() throws {
        let key = SenderKey.random(epoch: 4)
        var sealer = EnvelopeSealer(sender: alice, channel: channel, key: key)
        var opener = EnvelopeOpener()
        opener.install(key, sender: alice, channel: channel)
        let envelope = try sealEnvelope(&sealer, [1])
        _ = try openEnvelope(&opener, envelope)

        opener.install(key, sender: alice, channel: channel)
        #expect(opener.epochs(sender: alice, channel: channel) == [4])
        #expect(openError(&opener, envelope) == .replayed(counter: 0))

        sealer.install(key)
        #expect(sealer.nextCounter == 1)
        #expect(try openEnvelope(&opener, try sealEnvelope(&sealer, [2])).header.counter == 1)
    }

    @Test func countersNeverWrap() throws {
        let key = SenderKey.random(epoch: 9)
        var sealer = EnvelopeSealer(sender: alice, channel: channel, key: key, nextCounter: .max - 2)
        var opener = EnvelopeOpener()
        opener.install(key, sender: alice, channel: channel)
        #expect(try openEnvelope(&opener, try sealEnvelope(&sealer, [1])).header.counter == .max - 2)
        #expect(try openEnvelope(&opener, try sealEnvelope(&sealer, [2])).header.counter == .max - 1)
        #expect(throws: SecurityError.counterExhausted) { try sealEnvelope(&sealer, [3]) }
        #expect(throws: SecurityError.counterExhausted) { try sealEnvelope(&sealer, [3]) }
        #expect(sealer.nextCounter == .max)

        let next = SenderKey.random(epoch: 10)
        sealer.install(next)
        opener.install(next, sender: alice, channel: channel)
        #expect(try openEnvelope(&opener, try sealEnvelope(&sealer, [4])).header.counter == 0)
    }
}
