import ArgumentParser
import Foundation
import VoiceSimulation

/// `bench/run impairment-proxy`: the end-to-end benchmark's proxy on its own, for trying a real
/// call through an impaired link by hand. Prints the port it listens on; stops on end of input.
struct ImpairmentProxyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "impairment-proxy",
        abstract: "UDP and TCP on one loopback port to a target port; UDP toward the target is impaired.")

    @Option(help: "The port on 127.0.0.1 to forward to.") var target: Int
    @Option(help: "Fraction of datagrams lost, 0…1.") var loss = 0.0
    @Option(help: "Mean loss burst length in datagrams (1: independent).") var burst = 1.0
    @Option(help: "Mean loss burst in time, ms, instead of --burst (0: bursts counted in datagrams).")
    var burstMs = 0.0
    @Option(help: "Uniform jitter, ms.") var jitterMs = 0.0
    @Option(help: "Fixed delay, ms.") var delayMs = 0.0
    @Option(help: "Seed of the losses and delays.") var seed: UInt64 = 7

    func run() throws {
        let conditions = NetworkConditions(
            lossRate: loss, meanBurstLength: burst, meanBurstMilliseconds: burstMs, baseDelayMilliseconds: delayMs,
            jitterMilliseconds: jitterMs)
        do {
            try conditions.validate()
        } catch {
            throw ValidationError(error.description)
        }
        let proxy = try ImpairmentProxy(targetPort: target, conditions: conditions, seed: seed)
        print("listening 127.0.0.1:\(proxy.port) → 127.0.0.1:\(target)")
        fflush(nil)
        while readLine() != nil {}
        proxy.stop()
        let counts = proxy.counts.withLock { $0 }
        print(
            "sent \(counts.sent), dropped \(counts.dropped), delivered \(counts.delivered), late over 5 ms "
                + "\(counts.late), latest \(Double(counts.maximumLateness) / 1e6) ms")
    }
}
