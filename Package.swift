// swift-tools-version: 6.1
import PackageDescription

// Each C library is imported by exactly one Swift module:
//   libopus + libspeexdsp -> VoiceCodec, libasound -> VoiceDevices, libsodium -> VoiceWire.
// Everything above those modules sees owning Swift types and typed errors.
let package = Package(
    name: "voicechat",
    products: [
        .library(name: "VoiceCore", targets: ["VoiceCore"]),
        .library(name: "VoiceCodec", targets: ["VoiceCodec"]),
        .library(name: "VoiceDevices", targets: ["VoiceDevices"]),
        .library(name: "VoiceWire", targets: ["VoiceWire"]),
        .library(name: "VoiceMedia", targets: ["VoiceMedia"]),
        .library(name: "VoiceTransport", targets: ["VoiceTransport"]),
        .library(name: "VoiceEngine", targets: ["VoiceEngine"]),
        .library(name: "VoiceSimulation", targets: ["VoiceSimulation"]),
        // For the benchmark package only (it cannot see test targets): no command or library links it.
        .library(name: "VoiceTestHarness", targets: ["VoiceTestHarness"]),
        // For the fuzzing package only: every parser of untrusted bytes as an entry point.
        .library(name: "VoiceFuzzTargets", targets: ["VoiceFuzzTargets"]),
        .library(name: "VoiceRelayShared", targets: ["VoiceRelayShared"]),
        .library(name: "VoiceRelayClient", targets: ["VoiceRelayClient"]),
        .library(name: "VoiceRelay", targets: ["VoiceRelay"]),
        .library(name: "VoiceCluster", targets: ["VoiceCluster"]),
        .library(name: "VoiceControl", targets: ["VoiceControl"]),
        .library(name: "VoiceIO", targets: ["VoiceIO"]),
        // The C ABI (`Sources/CVoiceChatABI/include/voicechat.h`), as the shared library games link.
        .library(name: "voicechat-c", type: .dynamic, targets: ["VoiceChatC"]),
        .executable(name: "voicechat", targets: ["voicechat"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CVoiceOpus",
            pkgConfig: "opus",
            providers: [.apt(["libopus-dev"])]
        ),
        .systemLibrary(
            name: "CVoiceALSA",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        .systemLibrary(
            name: "CVoiceSpeexDSP",
            pkgConfig: "speexdsp",
            providers: [.apt(["libspeexdsp-dev"])]
        ),
        .systemLibrary(
            name: "CVoiceSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // sendmmsg(2), which glibc declares only under _GNU_SOURCE (a C file defines it).
        .target(name: "CVoiceSocket"),
        // Header-only: the futex system call, which Swift cannot call directly (it is variadic).
        .systemLibrary(name: "CVoiceFutex"),
        .target(name: "VoiceCore", dependencies: ["CVoiceFutex"]),
        .target(name: "VoiceCodec", dependencies: ["VoiceCore", "CVoiceOpus", "CVoiceSpeexDSP"]),
        .target(
            name: "VoiceDevices",
            dependencies: [
                "VoiceCore", "VoiceCodec", "CVoiceALSA", .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "VoiceWire",
            dependencies: ["VoiceCore", "CVoiceSodium", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(name: "VoiceMedia", dependencies: ["VoiceCore", "VoiceCodec", "VoiceWire"]),
        // How the engine chooses among its paths to a peer, and what it expects of the I/O that
        // carries them: no sockets here.
        .target(name: "VoiceTransport", dependencies: ["VoiceCore", "VoiceWire"]),
        // The engine's logic, without NIO: it sends and receives through `DatagramNetwork` and
        // `RelayConnection`, which VoiceIO implements.
        .target(
            name: "VoiceEngine", dependencies: ["VoiceCore", "VoiceCodec", "VoiceWire", "VoiceMedia", "VoiceTransport"]),
        // What the relay server and its clients (and the engine's signalling listener) share: who
        // owns an event-loop group, the NIO clock in nanoseconds, and per-address admission limits.
        .target(
            name: "VoiceRelayShared",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The relay's clients over UDP and TCP, and no server: what VoiceIO joins a relay with.
        .target(
            name: "VoiceRelayClient",
            dependencies: [
                "VoiceCore", "VoiceWire", "VoiceTransport", "VoiceRelayShared",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ]
        ),
        .target(
            name: "VoiceRelay",
            dependencies: [
                "VoiceCore", "VoiceWire", "VoiceRelayShared", "CVoiceSocket",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // Relays as a cluster on etcd: the etcd client (its JSON gateway through AsyncHTTPClient)
        // and each relay's membership under a lease.
        .target(
            name: "VoiceCluster",
            dependencies: [
                "VoiceCore", "VoiceRelay",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "VoiceControl",
            dependencies: [
                "VoiceCore", "VoiceCodec", "VoiceMedia", "VoiceEngine", "VoiceWire",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Every socket the engine uses: UDP for direct paths, the TCP signalling links and their
        // listener, and each match's relay link; the event-loop group can be injected.
        .target(
            name: "VoiceIO",
            dependencies: [
                "VoiceCore", "VoiceEngine", "VoiceRelayClient", "VoiceRelayShared", "VoiceTransport", "VoiceWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The simulation `voicechat simulate` runs, and tests and benchmarks share: a seeded network,
        // a call simulation with its reference receiver, and engines in one process on one virtual clock.
        .target(
            name: "VoiceSimulation",
            dependencies: ["VoiceCore", "VoiceCodec", "VoiceWire", "VoiceMedia", "VoiceEngine"]),
        // What real-time tests and benchmarks run around the product: a JACK server to pace devices,
        // and a watch that tells a stalled machine from a slow engine.
        .target(name: "VoiceTestHarness", dependencies: ["VoiceCore"]),
        .target(
            name: "VoiceFuzzTargets",
            dependencies: ["VoiceCore", "VoiceDevices", "VoiceWire", "VoiceEngine", "VoiceIO", "VoiceControl"]
        ),
        // The C ABI's header, the stable contract: imported by VoiceChatC alone, which exports it.
        .systemLibrary(name: "CVoiceChatABI"),
        .target(
            name: "VoiceChatC",
            dependencies: [
                "CVoiceChatABI", "VoiceCore", "VoiceCodec", "VoiceDevices", "VoiceMedia", "VoiceWire", "VoiceEngine",
                "VoiceIO", "VoiceRelay", "VoiceRelayClient", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Records the commit the command was built from, for `voicechat --version`.
        .plugin(name: "BuildCommit", capability: .buildTool()),
        .executableTarget(
            name: "voicechat",
            dependencies: [
                "VoiceCore", "VoiceCodec", "VoiceDevices", "VoiceMedia", "VoiceSimulation", "VoiceRelay",
                "VoiceRelayClient", "VoiceTransport", "VoiceWire", "VoiceEngine", "VoiceControl", "VoiceIO",
                "VoiceCluster",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            plugins: ["BuildCommit"]
        ),
        // Test support shared by several test targets (participants of the simulated world, raw sockets);
        // test targets cannot share sources directly.
        .target(
            name: "VoiceTestSupport",
            dependencies: ["VoiceCore", "VoiceEngine", "VoiceIO", "VoiceSimulation", "VoiceTransport"],
            path: "Tests/VoiceTestSupport"),
        .testTarget(name: "VoiceCoreTests", dependencies: ["VoiceCore", "VoiceSimulation"]),
        .testTarget(
            name: "VoiceCodecTests", dependencies: ["VoiceCodec", "VoiceCore", "VoiceDevices", "VoiceSimulation"]),
        .testTarget(
            name: "VoiceDevicesTests",
            dependencies: ["VoiceDevices", "VoiceCore", "VoiceSimulation", "VoiceTestHarness"]),
        .testTarget(name: "VoiceWireTests", dependencies: ["VoiceWire", "VoiceSimulation"]),
        .testTarget(
            name: "VoiceMediaTests",
            dependencies: ["VoiceMedia", "VoiceWire", "VoiceCodec", "VoiceCore", "VoiceDevices", "VoiceSimulation"]),
        .testTarget(
            name: "VoiceRelayTests",
            dependencies: [
                "VoiceRelay", "VoiceRelayClient", "VoiceTransport", "VoiceWire", "VoiceCore",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "VoiceSimulationTests", dependencies: ["VoiceSimulation", "VoiceCore", "VoiceDevices"]),
        .testTarget(
            name: "VoiceEngineTests",
            dependencies: [
                "VoiceTestSupport", "VoiceTestHarness",
                "VoiceEngine", "VoiceTransport", "VoiceWire", "VoiceMedia", "VoiceCore", "VoiceDevices", "VoiceIO",
                "VoiceRelay", "VoiceRelayClient", "VoiceFuzzTargets", "VoiceSimulation",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "VoiceTransportTests", dependencies: ["VoiceTransport", "VoiceCore", "VoiceSimulation", "VoiceWire"]),
        .testTarget(
            name: "VoiceControlTests",
            dependencies: [
                "VoiceTestSupport", "VoiceControl", "VoiceEngine", "VoiceCore", "VoiceSimulation", "voicechat",
            ]
        ),
        .testTarget(
            name: "VoiceIOTests",
            dependencies: [
                "VoiceTestSupport", "VoiceIO", "VoiceEngine", "VoiceCore", "VoiceDevices", "VoiceWire",
                "VoiceFuzzTargets", "VoiceSimulation",
            ]
        ),
        .testTarget(
            name: "VoiceChatCLITests",
            dependencies: [
                "VoiceTestSupport", "VoiceTestHarness", "voicechat", "VoiceCore", "VoiceDevices", "VoiceSimulation",
                "VoiceRelay", "VoiceRelayClient",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
