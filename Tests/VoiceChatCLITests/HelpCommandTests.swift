import Testing

/// `help` explains the commands there are, and refuses one that does not exist.
@Suite struct HelpCommandTests {
    @Test func helpForACommandThatDoesNotExistIsAUsageError() throws {
        let result = try CommandRunner.run(["help", "nosuch"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("there is no command \"nosuch\""))
        #expect(result.standardError.contains("demo, listen, call, relay, token, join"))
    }

    @Test func helpForACommandExplainsIt() throws {
        let result = try CommandRunner.run(["help", "join"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("USAGE: voicechat join"))
    }
}
