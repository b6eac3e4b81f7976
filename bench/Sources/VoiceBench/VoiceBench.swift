import ArgumentParser

/// `bench/run NAME`: one subcommand per benchmark. Each ends its output with one JSON line
/// per figure and exits non-zero when a threshold fails.
@main
struct VoiceBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench/run",
        abstract: "Benchmarks of the voice chat engine; each compares against a baseline measured in the same run.",
        subcommands: [
            CodecBenchmark.self, RingBenchmark.self, QualityBenchmark.self, PipelineBenchmark.self,
            EngineRTBenchmark.self, EchoBenchmark.self, FuzzBenchmark.self, CABIBenchmark.self,
            SealBenchmark.self,
            FailoverBenchmark.self, RelayBenchmark.self, LatencyBenchmark.self, E2EBenchmark.self, ChaosBenchmark.self,
            ProximityBenchmark.self, ClusterBenchmark.self, SpanBenchmark.self,
            AllBenchmarks.self,
            RelayServeCommand.self,
            LatencyPeerCommand.self, ImpairmentProxyCommand.self,
        ]
    )
}
