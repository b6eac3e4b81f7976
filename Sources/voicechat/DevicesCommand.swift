import ArgumentParser
import VoiceDevices

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the ALSA PCM devices, like `arecord -L` and `aplay -L`.",
        discussion: "Example: voicechat devices --capture-only"
    )

    @Flag(help: "Only devices that can capture.")
    var captureOnly = false

    @Flag(help: "Only devices that can play.")
    var playbackOnly = false

    func validate() throws {
        guard !(captureOnly && playbackOnly) else {
            throw ValidationError("--capture-only and --playback-only exclude each other; give at most one.")
        }
    }

    func run() throws {
        let devices: [ALSADeviceInfo]
        do {
            devices = try ALSADeviceList.pcmDevices()
        } catch {
            throw CommandFailure(error.description)
        }
        let shown = devices.filter { device in
            if captureOnly { return device.direction != .playback }
            if playbackOnly { return device.direction != .capture }
            return true
        }
        if shown.isEmpty {
            print("No ALSA PCM devices found. Define one in ~/.asoundrc or point ALSA_CONFIG_PATH at a configuration.")
            return
        }
        for device in shown {
            print("\(device.name)  [\(device.direction)]")
            let firstLine = device.description.split(separator: "\n").first.map(String.init) ?? ""
            if !firstLine.isEmpty { print("    \(firstLine)") }
        }
    }
}
