import ArgumentParser

/// The message `Command` refuses `arguments` with at start-up, or nil when it accepts them.
func parseRefusal<Command: ParsableCommand>(_ command: Command.Type, _ arguments: [String]) -> String? {
    do {
        _ = try command.parse(arguments)
        return nil
    } catch {
        return command.message(for: error)
    }
}
