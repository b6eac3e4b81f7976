import Foundation
import Testing
import VoiceControl
import VoiceCore
import VoiceWire

@Suite struct ControlRequestTests {
    private func failure(_ line: String) -> (id: JSONValue?, message: String?) {
        let (id, result) = ControlRequest.parse(Array(line.utf8))
        if case .failure(let error) = result { return (id, error.description) }
        return (id, nil)
    }

    @Test func readsEveryFieldOfAGoodRequest() throws {
        let (id, result) = ControlRequest.parse(
            Array(#"{"id":2,"command":"set-volume","channel":"team","volume":0.5}"#.utf8))
        let request = try result.get()
        #expect(id == .number(2))
        #expect(request.command == .setVolume)
        #expect(request.channel == "team")
        #expect(request.volume == 0.5)
        let talk = try ControlRequest.parse(Array(#"{"command":"talk","down":true}"#.utf8)).request.get()
        #expect(talk.down == true)
        let subscribe = try ControlRequest.parse(Array(#"{"command":"subscribe","intervalMilliseconds":250}"#.utf8))
            .request
            .get()
        #expect(subscribe.intervalMilliseconds == 250)
    }

    @Test func refusalsNameWhatWasWrongAndKeepTheID() {
        #expect(failure("{nope").message?.contains("not valid JSON") == true)
        #expect(failure("[1,2]").message?.contains("must be a JSON object") == true)
        #expect(failure(#"{"id":1}"#).message?.contains("missing field \"command\"") == true)
        let unknown = failure(#"{"id":"a","command":"explode"}"#)
        #expect(unknown.id == .string("a"))
        #expect(unknown.message?.contains("unknown command \"explode\"") == true)
        #expect(unknown.message?.contains("set-volume") == true)
        #expect(failure(#"{"id":3,"command":"set-volume"}"#).message == "set-volume needs field \"volume\"")
        #expect(
            failure(#"{"command":"set-volume","volume":1.5}"#).message?.contains("volume 1.5 is outside 0…1") == true)
        #expect(failure(#"{"command":"set-volume","volume":"loud"}"#).message?.contains("must be a number") == true)
        // A number no Double holds is not bad JSON: it is said as the number it is.
        #expect(
            failure(#"{"command":"set-volume","volume":1e999}"#).message
                == "the number 1e999 is too large for any setting; send a finite number")
        #expect(
            failure(#"{"command":"set-volume","player":"1e999x","volume":1e"#).message?.contains("not valid JSON")
                == true)
        #expect(
            failure(#"{"command":"set-player-volume","player":"bob","volume":2.5}"#).message?.contains(
                "a player's volume of 2.5 is outside 0…2") == true)
        #expect(
            failure(#"{"command":"set-player-volume","volume":1}"#).message
                == "set-player-volume needs field \"player\"")
        #expect(
            failure(#"{"command":"set-speech-processing"}"#).message
                == "set-speech-processing needs at least one of: denoise, agc, vadThresholdDB")
        #expect(
            failure(#"{"command":"set-speech-processing","vadThresholdDB":3}"#).message
                == "vadThresholdDB 3.0 is outside -120…0 dBFS")
        #expect(failure(#"{"command":"mute-player","player":""}"#).message?.contains("non-empty string") == true)
        #expect(failure(#"{"command":"talk","down":1}"#).message?.contains("true or false") == true)
        #expect(failure(#"{"command":"mute","volume":1}"#).message == "mute takes no field \"volume\"")
        #expect(
            failure(#"{"command":"set-volume","volume":1,"chanel":"x"}"#).message
                == "set-volume takes no field \"chanel\"; it takes: volume, channel")
        #expect(
            failure(#"{"command":"subscribe","intervalMilliseconds":5}"#).message?.contains("from 50 to 60000") == true)
        #expect(failure(#"{"command":"set-position","x":1,"y":2}"#).message == "set-position needs field \"z\"")
        #expect(
            failure(#"{"command":"set-position","x":1e300,"y":0,"z":0}"#).message?.contains("too far out") == true)
        #expect(
            failure(#"{"command":"set-position","x":0,"y":0,"z":0,"right":[0,0,0]}"#).message?.contains(
                "must be a direction") == true)
        #expect(
            failure(#"{"command":"set-position","x":0,"y":0,"z":0,"right":[1,0]}"#).message?.contains(
                "must be three numbers") == true)
        #expect(
            failure(#"{"command":"set-position","x":0,"y":0,"z":0,"right":[1,0,0],"player":"bob"}"#).message?
                .contains("leave \"player\" out") == true)
        #expect(
            failure(#"{"command":"set-proximity","channel":"field","range":-5}"#).message?.contains(
                "a proximity range of -5.0 is not a positive number") == true)
        #expect(
            failure(#"{"command":"set-proximity","channel":"field","range":40,"referenceDistance":80}"#).message?
                .contains("not a positive number below the range") == true)
        #expect(
            failure(#"{"command":"set-proximity","channel":"field","range":40,"rolloff":"cubic"}"#).message
                == "rolloff \"cubic\" is not one of: inverse, linear")
    }

    @Test func repliesEncodeAsCompactLinesThatDecodeBack() throws {
        let reply = ControlReply(id: .number(7), ok: true, snapshot: .sample)
        let line = JSONLines.line(reply)
        #expect(line.hasSuffix("\n"))
        #expect(!line.dropLast().contains("\n"))
        #expect(line.hasPrefix(#"{"id":7,"ok":true"#))
        #expect(try JSONDecoder().decode(ControlReply.self, from: Data(line.utf8)) == reply)
        let failure = JSONLines.line(ControlReply.failure(id: nil, .volumeOutOfRange(2)))
        #expect(!failure.contains("\"id\""))
        #expect(failure.contains("\"ok\":false"))
    }

    @Test func dispatcherTurnsRequestsIntoControlCalls() {
        let control = FakeControl(.sample)
        let dispatcher = ControlDispatcher(control: control)
        let lines = [
            #"{"id":1,"command":"mute"}"#, #"{"id":2,"command":"set-volume","channel":"team","volume":0.25}"#,
            #"{"id":3,"command":"mute-player","player":"bob","channel":"team"}"#,
            #"{"id":4,"command":"unmute-player","player":"bob"}"#,
            #"{"id":5,"command":"start-channel","channel":"all"}"#,
            #"{"id":6,"command":"activate-channel","channel":"all"}"#,
            #"{"id":7,"command":"stop-channel","channel":"team"}"#,
            #"{"id":8,"command":"push-to-talk","enabled":true}"#, #"{"id":9,"command":"talk","down":true}"#,
            #"{"id":10,"command":"unmute"}"#,
            #"{"id":11,"command":"set-player-volume","player":"bob","volume":1.5}"#,
            #"{"id":13,"command":"set-speech-processing","denoise":true,"vadThresholdDB":-50}"#,
            #"{"id":14,"command":"set-position","x":12,"y":0,"z":-3.5,"right":[0,0,-1]}"#,
            #"{"id":15,"command":"set-position","x":1,"y":2,"z":3,"player":"bob"}"#,
            #"{"id":16,"command":"set-proximity","channel":"team","range":40,"referenceDistance":2,"rolloff":"linear"}"#,
            #"{"id":17,"command":"set-proximity","channel":"team","range":0}"#,
        ]
        for line in lines {
            let (reply, change) = dispatcher.handle(Array(line.utf8))
            #expect(reply.ok, "\(line): \(reply.error ?? "")")
            #expect(change == nil)
        }
        #expect(
            control.calls == [
                .microphoneMuted(true), .volume(0.25, "team"), .player("bob", muted: true, channel: "team"),
                .player("bob", muted: false, channel: nil), .start("all"), .activate("all"), .stop("team"),
                .pushToTalk(true), .talking(true), .microphoneMuted(false), .playerVolume("bob", 1.5),
                .speechProcessing(denoise: true, agc: nil, threshold: -50),
                .position(VoicePosition(x: 12, y: 0, z: -3.5), right: VoicePosition(x: 0, y: 0, z: -1), player: nil),
                .position(VoicePosition(x: 1, y: 2, z: 3), right: nil, player: "bob"),
                .proximity(try? ProximitySettings(range: 40, referenceDistance: 2, rolloff: .linear), channel: "team"),
                .proximity(nil, channel: "team"),
            ])
        let (subscribe, change) = dispatcher.handle(Array(#"{"command":"subscribe"}"#.utf8))
        #expect(subscribe.intervalMilliseconds == 1000)
        #expect(change == .subscribe(intervalMilliseconds: 1000))
        #expect(dispatcher.handle(Array(#"{"command":"unsubscribe"}"#.utf8)).change == .unsubscribe)
        let help = dispatcher.handle(Array(#"{"command":"help"}"#.utf8)).reply
        #expect(help.commands?.map(\.command) == ControlCommand.allCases.map(\.rawValue))
        let refused = dispatcher.handle(Array(#"{"id":12,"command":"start-channel","channel":"red"}"#.utf8)).reply
        #expect(!refused.ok)
        #expect(refused.error == "no channel \"red\"; use one of: team, all")
    }
}
