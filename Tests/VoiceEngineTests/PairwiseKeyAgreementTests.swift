import Testing
import VoiceCore
import VoiceSimulation
import VoiceTestSupport
import VoiceWire

@testable import VoiceEngine

@Suite struct PairwiseKeyAgreementTests {
    private let alice = KeyAgreement()
    private let bob = KeyAgreement()
    private let aliceID = MediaID(participant: "alice")
    private let bobID = MediaID(participant: "bob")
    private let salt = Array("voicechat match m1".utf8)

    private var inputs: PairwiseKeyAgreement.Inputs {
        .init(
            ownPublicKey: alice.publicKeyBytes, peerPublicKey: bob.publicKeyBytes, salt: salt, local: aliceID,
            remote: bobID)
    }

    @Test func theKeyWorkedOutAheadIsTheOneThePeerDerives() throws {
        let agreed = PairwiseKeyAgreement(alice, inputs: inputs)
        let ours = try #require(try agreed.key(for: inputs)?.get())
        let theirs = try bob.pairwiseKey(
            peerPublicKey: alice.publicKeyBytes, session: salt, local: bobID, remote: aliceID)
        let key = SenderKey.random(epoch: 3)
        let opened = try theirs.unwrap(ours.wrap(key, sender: aliceID, channel: 1), sender: aliceID, channel: 1)
        #expect(opened.epoch == 3)
    }

    @Test func theKeyIsGivenOnlyForTheInputsItWasWorkedOutFrom() {
        let agreed = PairwiseKeyAgreement(alice, inputs: inputs)
        #expect(agreed.key(for: inputs) != nil)
        var rejoined = inputs
        rejoined.peerPublicKey = KeyAgreement().publicKeyBytes
        #expect(agreed.key(for: rejoined) == nil)
        var newSession = inputs
        newSession.ownPublicKey = KeyAgreement().publicKeyBytes
        #expect(agreed.key(for: newSession) == nil)
        var otherPeer = inputs
        otherPeer.remote = MediaID(participant: "carol")
        #expect(agreed.key(for: otherPeer) == nil)
        var otherMatch = inputs
        otherMatch.salt = Array("voicechat match m2".utf8)
        #expect(agreed.key(for: otherMatch) == nil)
    }

    @Test func anUnusablePublicKeyIsReportedAsTheDirectDerivationWould() {
        var bad = inputs
        bad.peerPublicKey = [UInt8](repeating: 0, count: KeyAgreement.publicKeyBytes)
        let agreed = PairwiseKeyAgreement(alice, inputs: bad)
        #expect(throws: SecurityError.invalidPublicKey) { try agreed.key(for: bad)?.get() }
    }

    @Test func onlyAHelloWithAKeyThePlayerDidNotHaveNeedsAnAgreement() throws {
        let world = SimulatedWorld()
        let alice = try world.participant("alice", index: 0)
        let bob = try world.participant("bob", index: 1)
        _ = try alice.join("arena", players: ["alice", "bob"])
        _ = try bob.join("arena", players: ["alice", "bob"])
        world.run(seconds: 1, [alice, bob])
        func hello(_ key: [UInt8]) -> Result<SignallingMessage, SignallingError> {
            .success(
                .hello(
                    match: "arena", offer: SessionOffer(publicKey: key, candidates: [], offersRealTime: false),
                    channels: []))
        }
        func inputs(_ message: Result<SignallingMessage, SignallingError>, from sender: ParticipantID)
            -> PairwiseKeyAgreement.Inputs?
        {
            alice.engine.withCore { $0.pairwiseKeyInputs(for: message, from: sender)?.1 }
        }
        let bobsKey = try #require(bob.engine.withCore { $0.sessions[.match("arena")]?.publicKey })
        let alicesKey = try #require(alice.engine.withCore { $0.sessions[.match("arena")]?.publicKey })
        #expect(inputs(hello(bobsKey), from: "bob") == nil)
        let rejoined = KeyAgreement().publicKeyBytes
        let needed = try #require(inputs(hello(rejoined), from: "bob"))
        #expect(needed.peerPublicKey == rejoined)
        #expect(needed.ownPublicKey == alicesKey)
        #expect(needed.remote == MediaID(participant: "bob"))
        #expect(needed.local == MediaID(participant: "alice"))
        #expect(inputs(hello(rejoined), from: "mallory") == nil)
        #expect(inputs(.success(.end(call: "0123456789abcdef0123456789abcdef", reason: .hungUp)), from: "bob") == nil)
    }

    @Test func acceptingAnInvitationNeedsTheCallersKeyAgreedAndNothingOnceAccepted() throws {
        let world = SimulatedWorld()
        let setup = try world.invitedCall()
        let (alice, bob, call) = (setup.alice, setup.bob, setup.call)
        func inputs(_ call: CallID) -> PairwiseKeyAgreement.Inputs? {
            bob.engine.withCore { $0.pairwiseKeyInputs(forAccepting: call)?.1 }
        }
        let alicesKey = try #require(alice.engine.withCore { $0.sessions[.call(call)]?.publicKey })
        let bobsKey = try #require(bob.engine.withCore { $0.sessions[.call(call)]?.publicKey })
        let needed = try #require(inputs(call))
        #expect(needed.peerPublicKey == alicesKey)
        #expect(needed.ownPublicKey == bobsKey)
        #expect(needed.remote == MediaID(participant: "alice"))
        #expect(inputs("0123456789abcdef0123456789abcdef") == nil)
        try setup.bobService.accept(call)
        #expect(inputs(call) == nil)
        world.run(seconds: 1, [alice, bob])
        #expect(bob.heardLevel(of: alice.frequency, lastSeconds: 0.5) > 0.05)
    }
}
