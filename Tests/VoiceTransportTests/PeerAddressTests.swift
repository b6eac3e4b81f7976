import Foundation
import Testing
import VoiceCore
import VoiceTransport

@Suite("PeerAddress")
struct PeerAddressTests {
    @Test func parsesIPv4AndBracketedIPv6() throws {
        let v4 = try PeerAddress(parsing: "1.2.3.4:5")
        #expect(v4.host == "1.2.3.4")
        #expect(v4.port == 5)
        #expect(v4.family == .ipv4)
        #expect(v4.description == "1.2.3.4:5")
        let v6 = try PeerAddress(parsing: "[::1]:5")
        #expect(v6.host == "::1")
        #expect(v6.family == .ipv6)
        #expect(v6.isLoopback)
        #expect(v6.description == "[::1]:5")
        #expect(try PeerAddress(parsing: "255.255.255.255:65535").port == 65535)
    }

    @Test func equalAddressesInDifferentSpellingsCompareEqual() throws {
        let long = try PeerAddress(parsing: "[2001:0db8:0000:0000:0000:0000:0000:0001]:80")
        let short = try PeerAddress(host: "2001:db8::1", port: 80)
        #expect(long == short)
        #expect(long.host == "2001:db8::1")
        #expect(try PeerAddress(host: "[::1]", port: 9) == PeerAddress(parsing: "[::1]:9"))
    }

    @Test(arguments: [
        "", ":5", "1.2.3.4", "1.2.3.4:", "1.2.3.4:0", "1.2.3.4:65536", "1.2.3.4:-1", "1.2.3.4:+5", "1.2.3.4:5x",
        "1.2.3.4: 5", "1.2.3.4:000005", "1.2.3:5", "1.2.3.256:5", "01.2.3.4:5", "example.com:5", "::1:5",
        "[::1]", "[::1]5", "[::1:5", "[]:5", "[1.2.3.4]:5x", "[fe80::1%eth0]:5", "1.2.3.4:5:6", " 1.2.3.4:5",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(throws: TransportError.self) { try PeerAddress(parsing: text) }
    }

    @Test func errorsSayWhatWasWrong() {
        #expect(throws: TransportError.invalidPort(0)) { try PeerAddress(host: "1.2.3.4", port: 0) }
        #expect(throws: TransportError.invalidPort(70000)) { try PeerAddress(host: "1.2.3.4", port: 70000) }
        #expect(throws: TransportError.invalidHost("localhost")) { try PeerAddress(host: "localhost", port: 1) }
        #expect(throws: TransportError.invalidHost("")) { try PeerAddress(host: "", port: 1) }
        do {
            _ = try PeerAddress(parsing: "::1:5")
            Issue.record("an unbracketed IPv6 address was accepted")
        } catch {
            #expect(error.description.contains("brackets"))
        }
        do {
            _ = try PeerAddress(parsing: "1.2.3.4")
            Issue.record("an address without a port was accepted")
        } catch {
            #expect(error.description.contains("port is missing"))
        }
        #expect(TransportError.invalidHost("x").description.contains("not resolved"))
    }

    @Test func classifiesLoopbackAndLinkLocal() throws {
        #expect(try PeerAddress(parsing: "127.0.0.2:1").isLoopback)
        #expect(try !PeerAddress(parsing: "10.0.0.1:1").isLoopback)
        #expect(try PeerAddress(parsing: "[fe80::1]:1").isLinkLocal)
        #expect(try PeerAddress(parsing: "[febf::1]:1").isLinkLocal)
        #expect(try !PeerAddress(parsing: "[fec0::1]:1").isLinkLocal)
        #expect(try !PeerAddress(parsing: "[2001:db8::1]:1").isLinkLocal)
    }

    @Test func codableAsItsText() throws {
        let addresses = [try PeerAddress(parsing: "1.2.3.4:5"), try PeerAddress(parsing: "[2001:db8::7]:5000")]
        let data = try JSONEncoder().encode(addresses)
        #expect(String(decoding: data, as: UTF8.self) == #"["1.2.3.4:5","[2001:db8::7]:5000"]"#)
        #expect(try JSONDecoder().decode([PeerAddress].self, from: data) == addresses)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([PeerAddress].self, from: Data(#"["1.2.3.4"]"#.utf8))
        }
    }
}
