import Testing
import VoiceRelay
import VoiceRelayClient
import VoiceWire

@Suite struct RelayTokenTests {
    let secret = RelaySecret.random()

    @Test func signedTokenSurvivesItsTextFormAndVerifies() throws {
        let token = try RelayToken.sign(match: "match-7", participant: "alice", expiry: 2_000, secret: secret)
        let parsed = try RelayToken(parsing: token.text)
        #expect(parsed == token)
        #expect(parsed.match == "match-7" && parsed.participant == "alice" && parsed.expiry == 2_000)
        try parsed.verify(secret: secret, now: 1_999, match: "match-7")
        #expect(!token.text.contains(where: { " '\"$&;|\\".contains($0) }))
    }

    @Test func expiredTokenIsRefused() throws {
        let token = try RelayToken.sign(match: "m", participant: "p", expiry: 100, secret: secret)
        #expect(throws: RelayTokenError.expired(expiry: 100, now: 101)) {
            try token.verify(secret: secret, now: 101)
        }
    }

    @Test func tokenFromAnotherSecretOrAlteredIsRefused() throws {
        let other = try RelayToken.sign(match: "m", participant: "p", expiry: 100, secret: RelaySecret.random())
        #expect(throws: RelayTokenError.badSignature) { try other.verify(secret: secret, now: 0) }

        let genuine = try RelayToken.sign(match: "m", participant: "p", expiry: 100, secret: secret)
        let forged = try RelayToken.sign(match: "m", participant: "mallory", expiry: 100, secret: secret)
        // Mallory's payload under p's MAC.
        let spliced = forged.text.split(separator: ".")[0] + "." + genuine.text.split(separator: ".")[1]
        #expect(throws: RelayTokenError.badSignature) {
            try RelayToken(parsing: String(spliced)).verify(secret: secret, now: 0)
        }
    }

    @Test func tokenForAnotherMatchIsRefused() throws {
        let token = try RelayToken.sign(match: "a", participant: "p", expiry: 100, secret: secret)
        #expect(throws: RelayTokenError.wrongMatch(expected: "b", found: "a")) {
            try token.verify(secret: secret, now: 0, match: "b")
        }
    }

    @Test(arguments: ["", "abc", "a.b.c", "!!!.AAAA", "AAAA.AAAA", "dmNydDE.AAAA"])
    func malformedTextIsRefused(text: String) {
        let error = #expect(throws: RelayTokenError.self) { try RelayToken(parsing: text) }
        guard case .malformed = error else {
            Issue.record("expected a malformed-token error, got \(String(describing: error))")
            return
        }
    }

    @Test func shortSecretIsRefused() {
        #expect(throws: RelayTokenError.secretTooShort(bytes: 8, minimum: 16)) {
            try RelaySecret(bytes: [UInt8](repeating: 1, count: 8))
        }
    }
}
