// swift-tools-version: 6.1
import PackageDescription

// Coverage-guided fuzzing (libFuzzer) of every parser of untrusted bytes. A package of its own so
// that the sanitizer flags it is built with never reach the product: `bench/run fuzz` builds it
// with `-sanitize=fuzzer,address` and runs each target.
let package = Package(
    name: "voicechat-fuzz",
    dependencies: [
        .package(name: "voicechat", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "VoiceFuzz",
            dependencies: [.product(name: "VoiceFuzzTargets", package: "voicechat")]
        )
    ],
    swiftLanguageModes: [.v6]
)
