import ArgumentParser
import Foundation
import VoiceRelay
import VoiceWire

/// Prints a relay join token, as a game server would issue one to a player.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a relay join token for one participant of one match.",
        discussion: """
            The token is signed with the relay's shared secret (HMAC-SHA256 over audience, match, \
            participant and expiry); the relay admits nobody without one. The relay checks it when the \
            player joins and whenever the player's client joins again (after a network change or a relay \
            restart): a player who joined stays past the expiry, but rejoining after it needs a new token, \
            so give tokens a TTL longer than a reconnect could take, or issue a fresh one when a client \
            asks. The relay takes a token up to 30 s past its expiry, for clocks that differ. With \
            --audience, only the relay started with that --audience takes it; without, any relay that \
            holds the secret does.

            Example:
              voicechat token --secret-file relay.secret --match arena-7 \\
                  --participant alice --ttl 3600
            """
    )

    @Option(help: ArgumentHelp("File holding the relay's shared secret (at least 16 bytes).", valueName: "file"))
    var secretFile: String

    @Option(help: "The match the token admits to.")
    var match: String

    @Option(help: "The participant ID the token is for (the name given to `join --name`).")
    var participant: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds during which the token admits the player, \(NumericArgument.tokenLifetime) (ten years) "
                + "(default: 3600).", valueName: "seconds"),
        transform: NumericArgument.tokenLifetime.int)
    var ttl = 3600

    @Option(help: "The relay the token is for, as its --audience names it (default: any relay with the secret).")
    var audience = ""

    func validate() throws {
        for (option, value) in [("--match", match), ("--participant", participant)] where value.isEmpty {
            throw ValidationError("\(option) is empty: give the ID the token is for (as `join` will be given it).")
        }
        for (option, value) in [("--match", match), ("--participant", participant), ("--audience", audience)]
        where value.utf8.count > RelayToken.maximumIDBytes {
            throw ValidationError(
                "\(option) is \(value.utf8.count) bytes long; a token holds at most "
                    + "\(RelayToken.maximumIDBytes).")
        }
    }

    func run() throws {
        let secret = try RelaySecretFile.load(secretFile)
        let expiry = UInt64(Date().timeIntervalSince1970) + UInt64(ttl)
        do {
            print(
                try RelayToken.sign(
                    audience: audience, match: match, participant: participant, expiry: expiry, secret: secret
                ).text)
        } catch {
            throw CommandFailure("cannot make a token: \(error)")
        }
    }
}

extension NumericArgument {
    /// How long a token admits its player: up to ten years, in seconds.
    static let tokenLifetime = NumericArgument(1...315_360_000, unit: "seconds")
}
