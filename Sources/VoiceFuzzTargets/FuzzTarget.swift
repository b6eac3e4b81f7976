import Synchronization
import VoiceControl
import VoiceCore
import VoiceDevices
import VoiceEngine
import VoiceIO
import VoiceWire

/// Every parser of untrusted bytes, as one entry point each: what the coverage-guided fuzzer
/// (`bench/run fuzz`) and the test suite's smoke run feed.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case sealedEnvelopeHeader = "sealed-envelope-header"
    /// A whole envelope opened under an installed key: header, replay window, authentication.
    case sealedEnvelopeOpen = "sealed-envelope-open"
    case voicePacket = "voice-packet"
    case receiverReport = "receiver-report"
    case connectivityProbe = "connectivity-probe"
    case relayMessage = "relay-message"
    case relayToken = "relay-token"
    /// A message between relays, without its tag: the target tags it with its own key, so that
    /// the fuzzer reaches the fields behind authentication.
    case relayPeerMessage = "relay-peer-message"
    case signallingFrame = "signalling-frame"
    case signallingMessage = "signalling-message"
    case controlRequest = "control-request"
    case wavHeader = "wav-header"

    /// Parses `bytes` as this target's input and says whether they were one; whatever they are,
    /// it must return.
    @discardableResult
    public func run(_ bytes: UnsafeRawBufferPointer) -> Bool {
        switch self {
        case .sealedEnvelopeHeader:
            return (try? SealedEnvelopeHeader(parsing: bytes)) != nil
        case .sealedEnvelopeOpen:
            return Self.opener.withLock { opener in (try? opener.open(bytes, into: Self.plaintext)) != nil }
        case .voicePacket:
            return (try? VoicePacketView(parsing: bytes)) != nil
        case .receiverReport:
            return (try? ReceiverReport(parsing: bytes)) != nil
        case .connectivityProbe:
            return (try? ConnectivityProbe(parsing: bytes)) != nil
        case .relayMessage:
            return (try? RelayMessage(parsing: bytes)) != nil
        case .relayToken:
            guard let token = try? RelayToken(parsing: String(decoding: bytes, as: UTF8.self)) else { return false }
            // Signed under another secret, so verification fails, but only after reading all of it.
            _ = try? token.verify(secret: Self.secret, now: 0)
            return true
        case .relayPeerMessage:
            var tagged = Array(bytes)
            tagged += Self.relayPeerKey.tag(of: tagged[...])
            return (try? RelayPeerMessage(opening: tagged, keys: [Self.relayPeerKey])) != nil
        case .signallingFrame:
            guard let kind = bytes.first else { return false }
            return (try? SignallingFrame(kind: kind, payload: Array(bytes.dropFirst())[...])) != nil
        case .signallingMessage:
            return SignallingParsing.parses(Array(bytes))
        case .controlRequest:
            if case .success = ControlRequest.parse(bytes).request { return true }
            return false
        case .wavHeader:
            let header = (try? WAVHeader(parsing: bytes)) != nil
            return (try? WAVAudio(decoding: Array(bytes))) != nil || header
        }
    }

    private static let secret = RelaySecret.random()
    /// The key `relayPeerMessage` tags its inputs with; seeds are messages sealed with it, less their tag.
    public static let relayPeerKey = RelayPeerKey(secret: secret)
    /// An opener with a key installed for sender 1, channel 0, so that envelopes get past the
    /// header to authentication.
    private static let opener: Mutex<EnvelopeOpener> = {
        var opener = EnvelopeOpener()
        opener.install(SenderKey.random(epoch: 0), sender: MediaID(rawValue: 1), channel: 0)
        return Mutex(opener)
    }()
    /// Only touched while `opener` is locked.
    private nonisolated(unsafe) static let plaintext = UnsafeMutableRawBufferPointer.allocate(
        byteCount: 65_536, alignment: 8)
}
