// swift-tools-version: 6.1
import PackageDescription

// The benchmark harness is a package of its own so that the library never depends on the
// allocation interposer or on benchmark-only C code. `bench/run NAME` builds it in release
// mode and runs one benchmark.
let package = Package(
    name: "voicechat-bench",
    dependencies: [
        .package(name: "voicechat", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // The same libopus calls the Swift layer makes, made directly from C, so that the
        // codec benchmark measures what the Swift layer adds.
        .target(name: "CDirectOpus", linkerSettings: [.linkedLibrary("opus")]),
        .executableTarget(
            name: "VoiceBench",
            dependencies: [
                "CDirectOpus",
                .product(name: "VoiceCore", package: "voicechat"),
                .product(name: "VoiceCodec", package: "voicechat"),
                .product(name: "VoiceDevices", package: "voicechat"),
                .product(name: "VoiceWire", package: "voicechat"),
                .product(name: "VoiceMedia", package: "voicechat"),
                .product(name: "VoiceTransport", package: "voicechat"),
                .product(name: "VoiceEngine", package: "voicechat"),
                .product(name: "VoiceSimulation", package: "voicechat"),
                .product(name: "VoiceTestHarness", package: "voicechat"),
                .product(name: "VoiceFuzzTargets", package: "voicechat"),
                .product(name: "VoiceIO", package: "voicechat"),
                .product(name: "VoiceRelayClient", package: "voicechat"),
                .product(name: "VoiceRelay", package: "voicechat"),
                .product(name: "VoiceCluster", package: "voicechat"),
                .product(name: "voicechat-c", package: "voicechat"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
