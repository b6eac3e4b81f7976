import Foundation
import VoiceSimulation

/// What a microphone picks up of what a loudspeaker plays: a mildly overdriven speaker, a delay
/// (the devices' buffers and the air), and a room: a direct path followed by reflections that
/// thicken and die away exponentially.
struct SimulatedEchoPath {
    /// Delay of the direct path, samples.
    let delaySamples: Int
    /// The room's response as sparse taps: offset after the direct path (samples) and gain.
    let taps: [(offset: Int, gain: Float)]
    /// The loudspeaker's drive into its soft clipping (tanh). At 1, speech peaking at -3 dBFS comes
    /// out with about 2.5 % distortion, a small loudspeaker played loud.
    let drive: Float

    /// - Parameters:
    ///   - delayMilliseconds: from the speaker's input to the direct sound at the microphone.
    ///   - reverberationMilliseconds: RT60 of the room (the time reflections take to fall 60 dB).
    ///   - lengthMilliseconds: where the room's response is cut.
    ///   - echoGainDB: level of the direct path relative to what is played.
    init(
        delayMilliseconds: Double, reverberationMilliseconds: Double = 250, lengthMilliseconds: Double = 100,
        echoGainDB: Double = -6, drive: Float = 1, sampleRate: Int = 48_000, seed: UInt64 = 11
    ) {
        delaySamples = Int(delayMilliseconds * Double(sampleRate) / 1000)
        self.drive = drive
        var generator = SeededRandom(seed: seed)
        let direct = Float(pow(10, echoGainDB / 20))
        var taps: [(Int, Float)] = [(0, direct)]
        let length = Int(lengthMilliseconds * Double(sampleRate) / 1000)
        // Reflections grow denser with time, as in a real room; their level falls 60 dB per RT60.
        var offset = Int(0.002 * Double(sampleRate))
        while offset < length {
            let seconds = Double(offset) / Double(sampleRate)
            let envelope = pow(10, -3 * seconds / (reverberationMilliseconds / 1000))
            let sign: Double = generator.next() & 1 == 0 ? 1 : -1
            let magnitude = 0.5 + 0.5 * Double(generator.next() % 1000) / 1000
            taps.append((offset, direct * Float(0.6 * sign * magnitude * envelope)))
            let spacing = max(4, Int(Double(sampleRate) * 0.002 * (1 - Double(offset) / Double(length))))
            offset += spacing / 2 + Int(generator.next() % UInt64(spacing))
        }
        self.taps = taps
    }

    /// How far the loudspeaker's distortion alone limits a linear canceller on `played`: the power
    /// of what it plays over the part no gain can predict, dB.
    func linearCeilingDB(_ played: [Float]) -> Double {
        let gain = linearGain(played)
        var output = 0.0
        var residual = 0.0
        for sample in played {
            let driven = Double(tanh(drive * sample) / drive)
            output += driven * driven
            residual += (driven - gain * Double(sample)) * (driven - gain * Double(sample))
        }
        return 10 * log10(output / max(residual, 1e-20))
    }

    /// What a perfect linear canceller leaves of the echo of `played`: the room's echo of the part
    /// of the loudspeaker's output that no gain on what it was given predicts.
    func distortionEcho(of played: [Float]) -> [Float] {
        let gain = Float(linearGain(played))
        return room(played.map { tanh(drive * $0) / drive - gain * $0 })
    }

    /// The gain that best predicts the loudspeaker's output from what it was given.
    private func linearGain(_ played: [Float]) -> Double {
        var product = 0.0
        var energy = 0.0
        for sample in played {
            product += Double(sample) * Double(tanh(drive * sample) / drive)
            energy += Double(sample) * Double(sample)
        }
        return product / max(energy, 1e-20)
    }

    /// The echo of `played` at the microphone, the same length as `played`.
    func echo(of played: [Float]) -> [Float] {
        room(played.map { tanh(drive * $0) / drive })
    }

    /// The delay and the room applied to what the loudspeaker put out.
    private func room(_ output: [Float]) -> [Float] {
        var echo = [Float](repeating: 0, count: output.count)
        for (offset, gain) in taps {
            let shift = delaySamples + offset
            guard shift < output.count else { continue }
            for index in shift..<output.count { echo[index] += gain * output[index - shift] }
        }
        return echo
    }
}
