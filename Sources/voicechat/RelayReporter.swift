import ServiceLifecycle
import VoiceRelay

/// Prints the relay's statistics every `interval` (if any) and once more when the service group
/// shuts down. It runs after the relay in the group, so it is shut down first and its last line
/// still sees the relay running.
struct RelayReporter: Service {
    let admin: RelayAdmin
    let interval: Duration?

    func run() async throws {
        if let interval {
            await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    if !Task.isCancelled, let statistics = try? await admin.statistics() {
                        printStatus(Self.line(statistics))
                    }
                }
            }
        } else {
            try? await gracefulShutdown()
        }
        let final = try? await admin.statistics()
        printStatus("relay stopping" + (final.map { ": " + Self.line($0) } ?? ""))
    }

    static func line(_ statistics: RelayStatistics) -> String {
        let counters = statistics.counters
        func count(_ number: Int, _ one: String, _ many: String) -> String { "\(number) \(number == 1 ? one : many)" }
        var text =
            "\(count(statistics.matches, "match", "matches")), "
            + "\(count(statistics.participants, "participant", "participants")), "
            + "\(statistics.currentSenders) talking; \(counters.packetsReceived) packets in, "
            + "\(counters.packetsForwarded) forwarded, \(counters.totalDrops) dropped"
        let reasons = RelayDropReason.allCases.filter { counters.drops($0) > 0 }
        if !reasons.isEmpty {
            text += " (" + reasons.map { "\($0): \(counters.drops($0))" }.joined(separator: ", ") + ")"
        }
        let refused = statistics.refusals.values.reduce(0, +)
        if refused > 0 { text += "; \(count(refused, "join", "joins")) refused" }
        return text
    }
}
