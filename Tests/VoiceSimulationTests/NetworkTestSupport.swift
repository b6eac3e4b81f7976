import VoiceCore
import VoiceSimulation

/// One delivered datagram: the index it was sent with, when it was sent and when it arrived.
struct Arrival: Equatable {
    var index: Int
    var sentAt: MediaTime
    var deliveredAt: MediaTime
    var delay: MediaTime { deliveredAt - sentAt }
}

/// Sends `count` datagrams, one every `interval`, each carrying its index and send time, and
/// delivers everything; returns the arrivals in delivery order.
func runNetwork(
    _ network: SimulatedNetwork, count: Int, interval: MediaTime = 20 * MediaTime.nanosecondsPerMillisecond
) -> [Arrival] {
    var arrivals: [Arrival] = []
    arrivals.reserveCapacity(count)
    let clock = ManualClock()
    var datagram = [UInt8](repeating: 0, count: 16)
    func collect(_ bytes: UnsafeRawBufferPointer, _ time: MediaTime) {
        let index = Int(bytes.loadUnaligned(fromByteOffset: 0, as: Int64.self))
        let sentAt = bytes.loadUnaligned(fromByteOffset: 8, as: Int64.self)
        arrivals.append(Arrival(index: index, sentAt: sentAt, deliveredAt: time))
    }
    for index in 0..<count {
        datagram.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: Int64(index), toByteOffset: 0, as: Int64.self)
            raw.storeBytes(of: clock.now, toByteOffset: 8, as: Int64.self)
        }
        datagram.withUnsafeBytes { network.send($0, at: clock.now) }
        network.deliver(until: clock.now, collect)
        clock.advance(by: interval)
    }
    network.deliver(until: .max, collect)
    return arrivals
}
