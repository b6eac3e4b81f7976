import Testing
import VoiceCore
import VoiceWire

/// Messages between relays: what one seals the other opens as it was, under the cluster's secret
/// or the one being retired, and nothing altered, forged or out of bounds is opened.
@Suite struct RelayPeerMessageTests {
    let secret = RelaySecret.random()

    static let member = RelayPeerMember(
        mediaID: 9, participant: "bob", channels: [1, 2], muted: [7], hearingRanges: [1: 40, 2: 12.5],
        position: VoicePosition(x: 1, y: -2, z: 3.5))

    @Test(arguments: [
        RelayPeerMessage.Body.hello, .voice([1, 2, 3]), .gone([7, 9]),
        .members([member, RelayPeerMember(mediaID: 7, participant: "alice")]),
    ])
    func whatOneRelaySealsTheOtherOpensAsItWas(_ body: RelayPeerMessage.Body) throws {
        let message = RelayPeerMessage(node: "relay-a", address: "10.0.0.1:7700", match: "arena", stamp: 42, body: body)
        let sealed = try message.sealed(with: RelayPeerKey(secret: secret))
        #expect(try RelayPeerMessage(opening: sealed, keys: [RelayPeerKey(secret: secret)]) == message)
        // A relay that rolls a new secret out still takes what is sealed with the one being retired.
        let keys = [RelayPeerKey(secret: RelaySecret.random()), RelayPeerKey(secret: secret)]
        #expect(try RelayPeerMessage(opening: sealed, keys: keys) == message)
    }

    @Test func anAlteredOrForeignMessageIsNotOpened() throws {
        let message = RelayPeerMessage(
            node: "relay-a", address: "10.0.0.1:7700", match: "arena", stamp: 42, body: .members([Self.member]))
        let sealed = try message.sealed(with: RelayPeerKey(secret: secret))
        let keys = [RelayPeerKey(secret: secret)]
        for index in [1, 5, 20, sealed.count - 1] {
            var altered = sealed
            altered[index] ^= 0x01
            #expect(throws: RelayPeerMessageError.unauthenticated) {
                try RelayPeerMessage(opening: altered, keys: keys)
            }
        }
        #expect(throws: RelayPeerMessageError.unauthenticated) {
            try RelayPeerMessage(opening: sealed, keys: [RelayPeerKey(secret: RelaySecret.random())])
        }
        #expect(throws: RelayPeerMessageError.self) {
            try RelayPeerMessage(opening: Array(sealed.prefix(10)), keys: keys)
        }
        #expect(throws: RelayPeerMessageError.self) { try RelayPeerMessage(opening: [], keys: keys) }
    }

    @Test func whatCannotBeSentIsRefusedBeforeItIsSealed() {
        let key = RelayPeerKey(secret: secret)
        func seal(_ body: RelayPeerMessage.Body, node: String = "relay-a", match: String = "arena") -> Bool {
            (try? RelayPeerMessage(node: node, address: "10.0.0.1:7700", match: match, stamp: 1, body: body)
                .sealed(with: key)) != nil
        }
        #expect(!seal(.voice([])))
        #expect(!seal(.hello, node: ""))
        #expect(!seal(.hello, node: String(repeating: "n", count: 65)))
        #expect(!seal(.hello, match: String(repeating: "m", count: 257)))
        #expect(!seal(.members(Array(repeating: Self.member, count: RelayPeerMessage.maximumMembers + 1))))
        var unbounded = Self.member
        unbounded.hearingRanges = [1: .nan]
        #expect(!seal(.members([unbounded])))
        unbounded = Self.member
        unbounded.position = VoicePosition(x: .infinity, y: 0, z: 0)
        #expect(!seal(.members([unbounded])))
        #expect(seal(.members(Array(repeating: Self.member, count: RelayPeerMessage.maximumMembers))))
    }
}
