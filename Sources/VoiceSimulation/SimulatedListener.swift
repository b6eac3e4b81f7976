import VoiceCore
import VoiceMedia
import VoiceWire

/// What a call simulation needs from the listening side, so that the engine's receive stream
/// and the plain reference receiver run through exactly the same simulated call.
public protocol SimulatedListener: AnyObject {
    func insert(_ packet: VoicePacketView, bytes: UnsafeRawBufferPointer, arrival: MediaTime)
    func pullFrame(into output: UnsafeMutableBufferPointer<Float>, at now: MediaTime)
    func makeReport(reporter: MediaID) -> ReceiverReport
    /// Whether loss the sender's protection cannot repair asks for an early report.
    var hasUnrepairableLoss: Bool { get }
    var statistics: ReceiveStatistics { get }
}

extension VoiceReceiveStream: SimulatedListener {}
