import Foundation
import VoiceCore
import VoiceMedia
import VoiceWire

/// One request line, validated: `{"id": 1, "command": "set-volume", "volume": 0.5, "channel": "team"}`.
public struct ControlRequest: Sendable, Hashable {
    /// Echoed in the reply; any JSON value, usually a number.
    public var id: JSONValue?
    public var command: ControlCommand
    public var channel: String?
    public var player: ParticipantID?
    public var volume: Float?
    /// `talk`: the key's new position.
    public var down: Bool?
    /// `push-to-talk`: on or off.
    public var enabled: Bool?
    /// `subscribe`: how often to push a snapshot.
    public var intervalMilliseconds: Int?
    /// `set-max-delay`'s budget, ms (checked against the engine's range when applied).
    public var milliseconds: Double?
    /// `set-speech-processing`'s settings; nil leaves one as it is.
    public var denoise: Bool?
    public var agc: Bool?
    public var vadThresholdDB: Float?
    /// `set-position`'s coordinates, and the direction to this player's right.
    public var position: VoicePosition?
    public var right: VoicePosition?
    /// `set-proximity`'s settings; nil with `command == .setProximity`: the channel is heard whole.
    public var proximity: ProximitySettings?

    public static let defaultIntervalMilliseconds = 1000
    public static let intervalRange = 50...60_000

    public init(id: JSONValue? = nil, command: ControlCommand) {
        self.id = id
        self.command = command
    }

    /// The first number in `line` (outside strings) that no Double holds, such as `1e999`: JSON
    /// allows it, but the decoder refuses the whole line for it.
    static func outOfRangeNumber(in line: some Collection<UInt8>) -> String? {
        var inString = false
        var escaped = false
        var number: [UInt8] = []
        func check() -> String? {
            defer { number.removeAll() }
            guard !number.isEmpty else { return nil }
            let text = String(decoding: number, as: UTF8.self)
            guard let value = Double(text), !value.isFinite else { return nil }
            return text
        }
        for byte in line {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                UInt8(ascii: "e"), UInt8(ascii: "E"):
                number.append(byte)
            default:
                if let found = check() { return found }
                if byte == UInt8(ascii: "\"") { inString = true }
            }
        }
        return check()
    }

    /// Reads one line. The ID comes back even when the rest is refused, so the reply can carry it.
    public static func parse(_ line: some Collection<UInt8>) -> (id: JSONValue?, request: Result<Self, ControlError>) {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(line))
        } catch {
            if let number = outOfRangeNumber(in: line) {
                return (
                    nil,
                    .failure(.badRequest("the number \(number) is too large for any setting; send a finite number"))
                )
            }
            return (nil, .failure(.badRequest("the line is not valid JSON; send one JSON object per line")))
        }
        guard case .object(let fields) = value else {
            return (nil, .failure(.badRequest("a request must be a JSON object, not \(value.typeName)")))
        }
        let id = fields["id"]
        do throws(ControlError) {
            return (id, .success(try parse(fields, id: id)))
        } catch {
            return (id, .failure(error))
        }
    }

    private static func parse(_ fields: [String: JSONValue], id: JSONValue?) throws(ControlError) -> Self {
        guard let commandValue = fields["command"] else {
            throw .badRequest("missing field \"command\"; send {\"command\": \"help\"} for the list")
        }
        guard case .string(let name) = commandValue else {
            throw .badRequest("field \"command\" must be a string, not \(commandValue.typeName)")
        }
        guard let command = ControlCommand(rawValue: name) else {
            let known = ControlCommand.allCases.map(\.rawValue).joined(separator: ", ")
            throw .badRequest("unknown command \"\(name)\"; the commands are: \(known)")
        }
        let allowed = Set(command.fields.map(\.name) + ["id", "command"])
        if let extra = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            let takes = command.fields.map(\.name)
            throw .badRequest(
                takes.isEmpty
                    ? "\(name) takes no field \"\(extra)\""
                    : "\(name) takes no field \"\(extra)\"; it takes: \(takes.joined(separator: ", "))")
        }
        for field in command.fields where field.required && fields[field.name] == nil {
            throw .badRequest("\(name) needs field \"\(field.name)\"")
        }
        var request = ControlRequest(id: id, command: command)
        request.channel = try string(fields, "channel", command: name)
        request.player = try string(fields, "player", command: name).map { ParticipantID($0) }
        request.down = try bool(fields, "down", command: name)
        request.enabled = try bool(fields, "enabled", command: name)
        if let volume = try number(fields, "volume", command: name) {
            if command == .setPlayerVolume {
                guard VoiceMixer.playerVolumes.contains(Float(volume)) else {
                    throw .playerVolumeOutOfRange(Float(volume))
                }
            } else {
                guard (0...1).contains(volume) else { throw .volumeOutOfRange(Float(volume)) }
            }
            request.volume = Float(volume)
        }
        request.milliseconds = try number(fields, "milliseconds", command: name)
        request.denoise = try bool(fields, "denoise", command: name)
        request.agc = try bool(fields, "agc", command: name)
        if let threshold = try number(fields, "vadThresholdDB", command: name) {
            guard SpeechProcessing.thresholds.contains(Float(threshold)) else {
                throw .badRequest("vadThresholdDB \(threshold) is outside -120…0 dBFS")
            }
            request.vadThresholdDB = Float(threshold)
        }
        if command == .setSpeechProcessing, request.denoise == nil, request.agc == nil, request.vadThresholdDB == nil {
            throw .badRequest("set-speech-processing needs at least one of: denoise, agc, vadThresholdDB")
        }
        if command == .setPosition {
            let position = VoicePosition(
                x: Float(try number(fields, "x", command: name) ?? 0),
                y: Float(try number(fields, "y", command: name) ?? 0),
                z: Float(try number(fields, "z", command: name) ?? 0))
            guard position.isFinite else {
                throw .badRequest(
                    "position \(position) is too far out for a 32-bit float; give coordinates in the game's units")
            }
            request.position = position
            if let value = fields["right"] {
                guard case .array(let items) = value, items.count == 3,
                    case .number(let x) = items[0], case .number(let y) = items[1], case .number(let z) = items[2]
                else {
                    throw .badRequest(
                        "field \"right\" of set-position must be three numbers, [x, y, z], not \(describe(value))")
                }
                let right = VoicePosition(x: Float(x), y: Float(y), z: Float(z))
                guard right.isFinite, right != .origin else {
                    throw .badRequest(
                        "field \"right\" of set-position must be a direction: three finite numbers, not all 0")
                }
                guard request.player == nil else {
                    throw .badRequest("\"right\" is this player's own orientation; leave \"player\" out to give it")
                }
                request.right = right
            }
        }
        if command == .setProximity {
            let range = try number(fields, "range", command: name) ?? 0
            let rolloffName = try string(fields, "rolloff", command: name)
            let rolloff = try rolloffName.map { name throws(ControlError) -> ProximitySettings.Rolloff in
                guard let rolloff = ProximitySettings.Rolloff(rawValue: name) else {
                    let known = ProximitySettings.Rolloff.allCases.map(\.rawValue).joined(separator: ", ")
                    throw .badRequest("rolloff \"\(name)\" is not one of: \(known)")
                }
                return rolloff
            }
            if range != 0 {
                do {
                    request.proximity = try ProximitySettings(
                        range: Float(range),
                        referenceDistance: Float(try number(fields, "referenceDistance", command: name) ?? 1),
                        rolloff: rolloff ?? .inverseDistance)
                } catch {
                    throw .badRequest("\(error); range 0 hears the channel whole again")
                }
            }
        }
        if let interval = try number(fields, "intervalMilliseconds", command: name) {
            guard interval.rounded() == interval, intervalRange.contains(Int(exactly: interval) ?? -1) else {
                throw .badRequest(
                    "intervalMilliseconds \(interval) must be a whole number of milliseconds from "
                        + "\(intervalRange.lowerBound) to \(intervalRange.upperBound)")
            }
            request.intervalMilliseconds = Int(interval)
        }
        return request
    }

    private static func string(_ fields: [String: JSONValue], _ name: String, command: String) throws(ControlError)
        -> String?
    {
        guard let value = fields[name] else { return nil }
        guard case .string(let text) = value, !text.isEmpty else {
            throw .badRequest("field \"\(name)\" of \(command) must be a non-empty string, not \(describe(value))")
        }
        return text
    }

    private static func bool(_ fields: [String: JSONValue], _ name: String, command: String) throws(ControlError)
        -> Bool?
    {
        guard let value = fields[name] else { return nil }
        guard case .bool(let flag) = value else {
            throw .badRequest("field \"\(name)\" of \(command) must be true or false, not \(describe(value))")
        }
        return flag
    }

    private static func number(_ fields: [String: JSONValue], _ name: String, command: String) throws(ControlError)
        -> Double?
    {
        guard let value = fields[name] else { return nil }
        guard case .number(let number) = value, number.isFinite else {
            throw .badRequest("field \"\(name)\" of \(command) must be a number, not \(describe(value))")
        }
        return number
    }

    private static func describe(_ value: JSONValue) -> String {
        if case .string(let text) = value, text.isEmpty { return "an empty string" }
        return value.typeName
    }
}
