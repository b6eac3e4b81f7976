import VoiceMedia
import VoiceSimulation

/// The JSON line `simulate` prints: the settings it ran with, then what each side counted, numbers
/// rounded to a thousandth, and null for what the chosen receiver does not measure (the baseline
/// has no target, no repair and no time steps) rather than a 0 that reads as measured.
struct SimulationSummary: Encodable {
    var settings: Settings
    var receiver: String
    var audioSeconds: Double
    var simulationSeconds: Double
    var statistics: Figures
    var send: Figures
    var network: Figures

    struct Settings: Encodable {
        var input: String
        var loss: Double
        var burst: Double
        var delayMilliseconds: Double
        var jitterMilliseconds: Double
        var duplicate: Double
        var driftPPM: Double
        var seed: UInt64
        var frameMilliseconds: Double
        var bitrate: Int
        var complexity: Int
        var receiver: String
    }

    /// What the baseline receiver (speexdsp's jitter buffer and Opus's concealment) counts of
    /// `ReceiveStatistics`; the rest is the engine's.
    static let measuredByBaseline: Set<String> = [
        "packetsReceived", "packetsLost", "concealedSamples", "totalSamplesPlayed", "malformedPackets",
        "currentDelayMilliseconds", "meanBufferingDelayMilliseconds", "p95BufferingDelayMilliseconds",
    ]

    init(
        settings: Settings, audioSeconds: Double, simulationSeconds: Double, statistics: ReceiveStatistics,
        send: SendStatistics, network: NetworkStatistics
    ) {
        self.settings = settings
        receiver = settings.receiver
        self.audioSeconds = Figures.rounded(audioSeconds)
        self.simulationSeconds = Figures.rounded(simulationSeconds)
        let baseline = settings.receiver == CallSimulation.Receiver.baseline.rawValue
        self.statistics = Figures(statistics, measured: baseline ? Self.measuredByBaseline : nil)
        self.send = Figures(send)
        self.network = Figures(network)
    }

    /// A statistics struct's stored figures, by name.
    struct Figures: Encodable {
        enum Value {
            case number(Double)
            case flag(Bool)
            case notMeasured
        }

        var values: [(name: String, value: Value)]

        /// - Parameter measured: the figures measured; nil when all are.
        init(_ statistics: Any, measured: Set<String>? = nil) {
            values = Mirror(reflecting: statistics).children.compactMap { child in
                guard let name = child.label else { return nil }
                if let measured, !measured.contains(name) { return (name, .notMeasured) }
                switch child.value {
                case let number as Int: return (name, .number(Double(number)))
                case let number as Double: return (name, number.isFinite ? .number(Self.rounded(number)) : .notMeasured)
                case let number as Float:
                    return (name, number.isFinite ? .number(Self.rounded(Double(number))) : .notMeasured)
                case let flag as Bool: return (name, .flag(flag))
                default: return nil
                }
            }
        }

        static func rounded(_ value: Double) -> Double {
            value.isFinite ? (value * 1_000).rounded() / 1_000 : 0
        }

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (name, value) in values {
                let key = Key(stringValue: name)
                switch value {
                case .number(let number): try container.encode(number, forKey: key)
                case .flag(let flag): try container.encode(flag, forKey: key)
                case .notMeasured: try container.encodeNil(forKey: key)
                }
            }
        }
    }
}
