import Foundation
import Testing
import VoiceControl
import VoiceTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ControlServerTests {
    @Test func badRequestsGetErrorRepliesAndTheConnectionGoesOn() async throws {
        let path = temporarySocketPath()
        let control = FakeControl(.sample)
        let server = try await ControlServer.start(path: path, control: control)
        defer { Task { await server.close() } }
        let client = try LineClient(path: path)

        let cases: [(String, String)] = [
            ("this is not json", "not valid JSON"),
            (#"{"id":1,"command":"dance"}"#, "unknown command \"dance\""),
            (#"{"id":2,"command":"set-volume","channel":"team"}"#, "needs field \"volume\""),
            (#"{"id":3,"command":"set-volume","volume":7}"#, "outside 0…1"),
            (#"{"id":4,"command":"activate-channel","channel":"red"}"#, "no channel \"red\"; use one of: team, all"),
            (#"{"id":5,"command":"mute-player","player":"mallory"}"#, "no player \"mallory\"; use one of: bob, carol"),
        ]
        for (line, expected) in cases {
            let reply = try client.request(line)
            #expect(!reply.ok)
            #expect(reply.error?.contains(expected) == true, "\(line) → \(reply.error ?? "nil")")
        }
        #expect(try client.request(#"{"id":4,"command":"activate-channel","channel":"all"}"#).id == .number(4))
        let good = try client.request(#"{"id":6,"command":"mute"}"#)
        #expect(good == ControlReply(id: .number(6), ok: true))
        #expect(control.calls == [.activate("all"), .microphoneMuted(true)])
    }

    @Test func anOverlongLineIsRefusedAndDiscarded() async throws {
        let path = temporarySocketPath()
        let server = try await ControlServer.start(path: path, control: FakeControl(.sample))
        defer { Task { await server.close() } }
        let client = try LineClient(path: path)
        // Sent in pieces, with a newline only at the end: the server must not keep it all.
        let piece = String(repeating: "x", count: 16 * 1024)
        for _ in 0..<5 { try client.send(piece) }
        let refusal = try client.request(#"{"id":1,"command":"mute"}"#)
        #expect(!refusal.ok)
        #expect(refusal.error?.contains("longer than 65536 bytes") == true)
        // The rest of the long line, up to its newline, went with it; the next request is served.
        #expect(try client.request(#"{"id":2,"command":"help"}"#).ok)
        // A line just under the limit is read as a request (and refused for what it says).
        let padded = #"{"id":3,"command":"mute","pad":""# + String(repeating: "y", count: 60_000) + #""}"#
        #expect(try client.request(padded).error == "mute takes no field \"pad\"")
    }

    @Test func subscriptionsPushUntilUnsubscribedAndTwoClientsAreServed() async throws {
        let path = temporarySocketPath()
        let server = try await ControlServer.start(path: path, control: FakeControl(.sample))
        defer { Task { await server.close() } }
        let first = try LineClient(path: path)
        let second = try LineClient(path: path)
        let subscribed = try first.request(#"{"id":1,"command":"subscribe","intervalMilliseconds":50}"#)
        #expect(subscribed.ok && subscribed.intervalMilliseconds == 50)
        #expect(try first.nextPush().snapshot == .sample)
        #expect(try first.nextPush().event == "stats")

        // The other client is answered meanwhile, and gets no pushes.
        let stats = try second.request(#"{"id":"s","command":"stats"}"#)
        #expect(stats.id == .string("s"))
        #expect(stats.snapshot?.participants.map(\.participant) == ["bob", "carol"])
        #expect(server.connectionCount == 2)

        #expect(try first.request(#"{"id":2,"command":"unsubscribe"}"#).ok)
        // Pushes and replies share one ordered stream, and the server stopped pushing when it
        // answered: a request now gets its reply as the very next line.
        try first.send(#"{"id":3,"command":"help"}"# + "\n")
        let next = try #require(first.readLine())
        #expect(next.hasPrefix(#"{"commands""#))
        #expect(next.contains(#""id":3"#))
    }

    @Test func aClientThatLeavesMidSubscriptionIsCleanedUp() async throws {
        let path = temporarySocketPath()
        let server = try await ControlServer.start(path: path, control: FakeControl(.sample))
        defer { Task { await server.close() } }
        let leaving = try LineClient(path: path)
        #expect(try leaving.request(#"{"command":"subscribe","intervalMilliseconds":50}"#).ok)
        _ = try leaving.nextPush()
        #expect(server.connectionCount == 1)
        leaving.close()
        #expect(await eventually(within: 5) { server.connectionCount == 0 })
        let staying = try LineClient(path: path)
        #expect(try staying.request(#"{"command":"stats"}"#).snapshot != nil)
    }

    @Test func aStaleSocketFileIsReplacedAndALiveOneRefused() async throws {
        let path = temporarySocketPath()
        // A socket file nobody listens on, as a crashed process leaves it.
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
            raw[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        close(descriptor)
        #expect(FileManager.default.fileExists(atPath: path))

        let server = try await ControlServer.start(path: path, control: FakeControl(.sample))
        #expect(try LineClient(path: path).request(#"{"command":"stats"}"#).ok)

        do {
            let second = try await ControlServer.start(path: path, control: FakeControl(.sample))
            await second.close()
            Issue.record("a second server started on a socket in use")
        } catch {
            #expect(error.description.contains("another process is listening on \(path)"))
        }
        // The refused server left the live socket alone.
        #expect(try LineClient(path: path).request(#"{"command":"stats"}"#).ok)

        await server.close()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aFileThatIsNotASocketIsLeftAloneAndLongPathsAreRefused() async throws {
        let path = temporarySocketPath()
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8)))
        defer { unlink(path) }
        await #expect(
            throws: ControlError.socket("\(path) exists and is not a socket; remove it or choose another control path")
        ) {
            _ = try await ControlServer.start(path: path, control: FakeControl(.sample))
        }
        #expect(FileManager.default.contents(atPath: path) == Data("keep me".utf8))

        let long = "/tmp/" + String(repeating: "d", count: 120) + ".sock"
        do {
            _ = try await ControlServer.start(path: long, control: FakeControl(.sample))
            Issue.record("a path over the limit was accepted")
        } catch {
            #expect(error.description.contains("at most 107"))
        }
        do {
            _ = try await ControlServer.start(path: "/nonexistent-dir/x.sock", control: FakeControl(.sample))
            Issue.record("a socket in a missing directory was accepted")
        } catch {
            #expect(error.description.contains("cannot listen on /nonexistent-dir/x.sock"))
        }
    }
}
