import Testing
import VoiceEngine

@testable import voicechat

/// The lines `join` prints for the match's events.
@Suite struct MatchEventLineTests {
    /// A relay failure names the transport once ("relay relay: the relay …" before).
    @Test func aRelayFailureNamesItsTransportWithoutSayingRelayTwice() {
        #expect(
            MatchSession.describe(.relayFailed(path: .relayUDP, .unreachable("no route")))
                == "over UDP: the relay cannot be used: no route")
        #expect(
            MatchSession.describe(.relayFailed(path: .relayTCP, .unreachable("no route")))
                == "over TCP: the relay cannot be used: no route")
    }
}
