import ArgumentParser
import VoiceDevices

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the ALSA PCM devices that open here, with their rates and channels.",
        discussion: """
            Starts with `default`, then the PCMs ALSA's configuration names (as `arecord -L` and \
            `aplay -L` do), each opened briefly in each direction it claims: what opens is listed with \
            the rates and channel counts it takes; what does not (rate converters and other plugins \
            that need a device behind them, sound servers that are not running) is counted at the end, \
            and --all lists it with alsa-lib's reason. Sound servers (jack, pulse) are not opened: \
            opening one can start it.

            Examples:
              voicechat devices
              voicechat devices --capture-only
              voicechat devices --all
            """
    )

    @Flag(help: "Only devices that can capture.")
    var captureOnly = false

    @Flag(help: "Only devices that can play.")
    var playbackOnly = false

    @Flag(help: "Also list the PCMs that do not open here, with why.")
    var all = false

    func validate() throws {
        guard !(captureOnly && playbackOnly) else {
            throw ValidationError("--capture-only and --playback-only exclude each other; give at most one.")
        }
    }

    /// PCMs backed by a sound server: opening one may start the server, so they are named, not opened.
    static let soundServers: Set<String> = ["jack", "pulse"]

    func run() throws {
        let hinted: [ALSADeviceInfo]
        do {
            hinted = try ALSADeviceList.pcmDevices()
        } catch {
            throw CommandFailure(error.description)
        }
        var devices = hinted.filter { $0.name != "default" }
        devices.insert(
            hinted.first { $0.name == "default" }
                ?? ALSADeviceInfo(name: "default", description: "ALSA's default device", direction: .both), at: 0)

        var unusable: [(name: String, why: String)] = []
        // A card shows as hw: PCMs in the hints whether or not another program holds it now.
        let soundCard = devices.contains { $0.name.hasPrefix("hw:") || $0.name.hasPrefix("plughw:") }
        for device in devices {
            let firstLine = device.description.split(separator: "\n").first.map(String.init) ?? ""
            if Self.soundServers.contains(device.name) {
                if all {
                    print(
                        "\(device.name)  (a sound server's PCM; not opened)\(firstLine.isEmpty ? "" : ": \(firstLine)")"
                    )
                }
                continue
            }
            var lines: [String] = []
            var failures: [String] = []
            for capture in [true, false] {
                guard capture ? device.direction.allowsCapture : device.direction.allowsPlayback,
                    !(capture && playbackOnly), !(!capture && captureOnly)
                else { continue }
                let direction = capture ? "capture" : "playback"
                switch ALSAPCMProbe.capabilities(of: device.name, capture: capture) {
                case .success(let capabilities):
                    lines.append("    \(direction): \(Self.describe(capabilities))")
                case .failure(let failure):
                    failures.append("\(direction): \(failure)")
                }
            }
            if lines.isEmpty {
                if !failures.isEmpty { unusable.append((device.name, failures.joined(separator: "; "))) }
                continue
            }
            print(device.name + (firstLine.isEmpty ? "" : "  \(firstLine)"))
            for line in lines { print(line) }
            for failure in failures { print("    \(failure)") }
        }
        if !unusable.isEmpty {
            if all {
                print("\ndo not open here:")
                for (name, why) in unusable { print("  \(name): \(why)") }
            } else {
                print(
                    "\n\(unusable.count) more PCMs do not open here (plugins that need a device behind them, or no "
                        + "device for them); --all lists them with why")
            }
        }
        if !soundCard {
            print(
                "\nno sound card here: use WAV files instead (--input said.wav --output heard.wav on every command), "
                    + "or a JACK server with its dummy driver (README: \"Without a sound card\")")
        }
    }

    static func describe(_ capabilities: ALSAPCMCapabilities) -> String {
        func range(_ values: ClosedRange<UInt32>) -> String {
            values.lowerBound == values.upperBound
                ? "\(values.lowerBound)" : "\(values.lowerBound)–\(values.upperBound)"
        }
        // A plugin with no hardware behind it (null, file) takes whatever it is given.
        let rates = capabilities.rates
        let rateText = rates.lowerBound <= 8_000 && rates.upperBound >= 768_000 ? "any rate" : "\(range(rates)) Hz"
        let channels = capabilities.channels
        let channelText =
            channels.upperBound >= 1_024
            ? "any number of channels" : "\(range(channels)) channel\(channels == 1...1 ? "" : "s")"
        return "\(rateText), \(channelText)"
    }
}
