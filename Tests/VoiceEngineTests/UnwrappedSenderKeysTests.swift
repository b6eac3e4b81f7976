import Testing
import VoiceSimulation
import VoiceTestSupport
import VoiceWire

@testable import VoiceEngine

/// A `keys` message's sender keys are opened on the thread that received it, and used only while
/// the sender's pairwise key is the one they were opened with.
@Suite struct UnwrappedSenderKeysTests {
    private let match = SessionReference.match("arena")

    /// Alice, Bob and Carol in a match, keys exchanged; Bob's keys for Alice wrapped again, as a
    /// `keys` message carries them.
    private func meeting() throws -> (world: SimulatedWorld, alice: SimulatedParticipant, keys: [WrappedSenderKey]) {
        let world = SimulatedWorld()
        let players = try world.threePlayerMatch()
        world.run(seconds: 1, players)
        let (alice, bob) = (players[0], players[1])
        let keys = bob.engine.withCore { core -> [WrappedSenderKey] in
            guard let session = core.sessions[match], let peer = session.peers["alice"] else { return [] }
            return session.senderKeys.wrapped(for: peer)
        }
        try #require(!keys.isEmpty)
        return (world, alice, keys)
    }

    /// Handles Bob's `keys` message at Alice with `unwrapped`; returns whether it was refused.
    private func handle(
        _ keys: [WrappedSenderKey], unwrapped: UnwrappedSenderKeys, at alice: SimulatedParticipant
    ) -> Bool {
        let refusedBefore = alice.engine.counters.signallingRejected
        alice.engine.withCore { core in
            guard let session = core.sessions[match] as? MatchSession else { return }
            core.receiveSignalling(
                .success(.keys(match, keys)), from: "bob", client: session.client, events: .match(session.events),
                unwrapped: unwrapped, now: alice.engine.now)
        }
        return alice.engine.counters.signallingRejected > refusedBefore
    }

    /// The keys with each wrapped byte string damaged: none opens.
    private func damaged(_ keys: [WrappedSenderKey]) -> [WrappedSenderKey] {
        keys.map { WrappedSenderKey(channel: $0.channel, epoch: $0.epoch, bytes: $0.bytes.map { $0 ^ 0xFF }) }
    }

    @Test func keysOpenedWithTheSendersPairwiseKeyOfNowAreTheOnesInstalled() throws {
        let (_, alice, keys) = try meeting()
        let pairwise = try #require(alice.engine.withCore { $0.pairwiseKey(of: "bob", in: match) })
        // Opened from damaged bytes with the right pairwise key: what was opened is what counts,
        // so the message is refused although the bytes it carries are sound.
        #expect(
            handle(keys, unwrapped: UnwrappedSenderKeys(damaged(keys), pairwise: pairwise, sender: "bob"), at: alice))
        #expect(!handle(keys, unwrapped: UnwrappedSenderKeys(keys, pairwise: pairwise, sender: "bob"), at: alice))
    }

    @Test func keysOpenedWithAPairwiseKeyNoLongerTheSendersAreOpenedAgain() throws {
        let (_, alice, keys) = try meeting()
        let stale = try KeyAgreement().pairwiseKey(
            peerPublicKey: KeyAgreement().publicKeyBytes, session: Array("voicechat match arena".utf8),
            local: MediaID(participant: "alice"), remote: MediaID(participant: "bob"))
        // Bob's pairwise key changed since (he rejoined): the message's own bytes are opened again.
        #expect(!handle(keys, unwrapped: UnwrappedSenderKeys(damaged(keys), pairwise: stale, sender: "bob"), at: alice))
    }
}
