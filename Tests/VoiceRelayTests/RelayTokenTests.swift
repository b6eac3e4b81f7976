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

    /// Taken up to `expiryGraceSeconds` (30 s) past its expiry, for clocks that differ; refused after.
    @Test func expiredTokenIsRefusedAfterTheGrace() throws {
        let token = try RelayToken.sign(match: "m", participant: "p", expiry: 100, secret: secret)
        try token.verify(secret: secret, now: 100 + RelayToken.expiryGraceSeconds)
        #expect(throws: RelayTokenError.expired(expiry: 100, now: 131)) {
            try token.verify(secret: secret, now: 131)
        }
        // An expiry so late that adding the grace would overflow is refused, not trapped on.
        let never = try RelayToken.sign(match: "m", participant: "p", expiry: .max, secret: secret)
        #expect(throws: RelayTokenError.expired(expiry: .max, now: 0)) { try never.verify(secret: secret, now: 0) }
    }

    @Test func aTokenThatWouldNotFitAJoinIsNotSigned() throws {
        let longest = String(repeating: "x", count: RelayToken.maximumIDBytes)
        let error = #expect(throws: RelayTokenError.self) {
            try RelayToken.sign(audience: longest, match: longest, participant: longest, expiry: 1, secret: secret)
        }
        guard case .malformed(let reason) = error else {
            Issue.record("expected a malformed-token error, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("more than \(RelayToken.maximumTextBytes)"))
        // Two of them at their longest still fit.
        let token = try RelayToken.sign(match: longest, participant: longest, expiry: 1, secret: secret)
        #expect(try RelayToken(parsing: token.text) == token)
    }

    @Test func aTokenForOneRelayIsRefusedByAnother() throws {
        let token = try RelayToken.sign(
            audience: "eu-1", match: "m", participant: "p", expiry: 100, secret: secret)
        let parsed = try RelayToken(parsing: token.text)
        #expect(parsed.audience == "eu-1")
        try parsed.verify(secret: secret, now: 0, audience: "eu-1")
        #expect(throws: RelayTokenError.wrongAudience(relay: "us-2", found: "eu-1")) {
            try parsed.verify(secret: secret, now: 0, audience: "us-2")
        }
        // A relay that names no audience takes only tokens for any relay.
        #expect(throws: RelayTokenError.wrongAudience(relay: "", found: "eu-1")) {
            try parsed.verify(secret: secret, now: 0)
        }
        let anyRelay = try RelayToken.sign(match: "m", participant: "p", expiry: 100, secret: secret)
        try anyRelay.verify(secret: secret, now: 0, audience: "us-2")
        try anyRelay.verify(secret: secret, now: 0)
        // The audience is signed: one changed to another relay's breaks the signature.
        let other = try RelayToken.sign(audience: "us-2", match: "m", participant: "p", expiry: 100, secret: secret)
        let spliced = other.text.split(separator: ".")[0] + "." + token.text.split(separator: ".")[1]
        #expect(throws: RelayTokenError.badSignature) {
            try RelayToken(parsing: String(spliced)).verify(secret: secret, now: 0, audience: "us-2")
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
