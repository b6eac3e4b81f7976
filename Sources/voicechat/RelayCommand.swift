import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import VoiceCluster
import VoiceControl
import VoiceCore
import VoiceRelay
import VoiceWire

/// Runs the relay standalone: UDP and TCP on one port, until Ctrl-C, SIGTERM or `--duration`.
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Run the relay server (UDP and TCP on one port) for players who cannot reach each other.",
        discussion: """
            Players join with a token signed with the same secret (see `voicechat token`). The relay \
            forwards sealed voice without being able to open it.

            Example:
              voicechat relay --port 7700 --secret-file relay.secret \\
                  --prometheus-port 9100

            With --admin-socket, `voicechat relay-admin` lists matches and players, kicks, \
            server-mutes and moves players.
            """
    )

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Port for both UDP and TCP, 1…65535.", valueName: "port"),
        transform: NumericArgument.port.int)
    var port: Int

    @Option(help: "Address to listen on (0.0.0.0 for every interface, 127.0.0.1 for this host only).")
    var host = "0.0.0.0"

    @Option(help: ArgumentHelp("File holding the shared secret (at least 16 bytes).", valueName: "file"))
    var secretFile: String

    @Option(
        help: ArgumentHelp(
            "File holding the secret being retired: tokens signed with it are still taken while the new "
                + "--secret-file rolls out to every relay and the game server.", valueName: "file"))
    var previousSecretFile: String?

    @Option(
        name: .customLong("match"),
        help: ArgumentHelp("Only admit tokens for this match (repeat for several; default: any).", valueName: "match"))
    var matches: [String] = []

    @Option(
        help: ArgumentHelp(
            "This relay's name in tokens: it takes tokens made with `token --audience` and this name, and "
                + "tokens for any relay; it refuses tokens for another (default: only tokens for any relay).",
            valueName: "name"))
    var audience: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Serve Prometheus metrics at http://127.0.0.1:PORT/metrics.", valueName: "port"),
        transform: NumericArgument.port.int)
    var prometheusPort: Int?

    @Option(
        help: ArgumentHelp(
            "Serve the admin API on this Unix socket (only this user may connect), for `voicechat relay-admin`.",
            valueName: "path"))
    var adminSocket: String?

    @Option(
        name: .customLong("match-players"), parsing: .unconditional,
        help: ArgumentHelp(
            "Most players of one match on this relay, \(NumericArgument.matchPlayers) (default: "
                + "\(RelayLimits().maximumMembersPerMatch)); in a cluster, a match with more takes its next players "
                + "on other relays.", valueName: "count"),
        transform: NumericArgument.matchPlayers.int)
    var maximumMatchPlayers = RelayLimits().maximumMembersPerMatch

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds without traffic after which a member is dropped, \(NumericArgument.livenessTimeout) "
                + "(default: 5).", valueName: "seconds"),
        transform: NumericArgument.livenessTimeout.double)
    var livenessTimeout: Double = 5

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Print a statistics line every this many seconds, \(NumericArgument.reportInterval) (0: only at the "
                + "end) (default: 10).", valueName: "seconds"),
        transform: NumericArgument.reportInterval.double)
    var reportEvery: Double = 10

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Stop after this many seconds (for scripts); default: run until Ctrl-C or SIGTERM.", valueName: "seconds"),
        transform: NumericArgument.duration.double)
    var duration: Double?

    @Option(
        help: ArgumentHelp(
            "What the relay logs to standard error: info logs each join, leave and refused join with its "
                + "reason; notice only refusals; debug adds why a token was refused (e.g. --log-level notice).",
            valueName: "level"))
    var logLevel = LogLevelOption(.info)

    @OptionGroup(title: "Cluster")
    var clusterOptions: ClusterOptions

    func validate() throws {
        _ = try clusterOptions.configuration()
        if let audience, audience.isEmpty || audience.utf8.count > RelayToken.maximumIDBytes {
            throw ValidationError("--audience must be 1…\(RelayToken.maximumIDBytes) bytes, not \"\(audience)\".")
        }
        if let adminSocket {
            do {
                try ControlServer.checkPath(adminSocket)
            } catch {
                throw ValidationError("--admin-socket: \(error)")
            }
        }
    }

    func run() async throws {
        var configuration = RelayConfiguration(host: host, port: port, secret: try RelaySecretFile.load(secretFile))
        configuration.previousSecret = try previousSecretFile.map { try RelaySecretFile.load($0) }
        configuration.allowedMatches = matches.isEmpty ? nil : Set(matches)
        configuration.audience = audience
        configuration.prometheusPort = prometheusPort
        configuration.livenessTimeout = Duration.milliseconds(Int(livenessTimeout * 1000))
        var logger = Logger(label: "voicechat.relay")
        logger.logLevel = logLevel.level
        configuration.limits.maximumMembersPerMatch = maximumMatchPlayers
        let cluster = try clusterOptions.configuration()
        configuration.clusterNode = cluster.map { RelayNode(node: $0.node, address: $0.advertise) }
        let view = ClusterView()
        let placement = cluster.map { ClusterPlacement(configuration: $0, view: view, logger: logger) }
        let relay = RelayServer(configuration: configuration, logger: logger, placement: placement)
        do {
            try await relay.start()
        } catch {
            throw CommandFailure("\(error)")
        }
        var listening = "relay listening on UDP and TCP \(endpointText(host: host, port: port))"
        if let metricsPort = relay.prometheusPort {
            listening += ", metrics at http://127.0.0.1:\(metricsPort)/metrics"
        }
        var services: [any Service] = [relay]
        let drain = RelayDrain(relay: relay, deadline: .milliseconds(Int(clusterOptions.drainDeadline * 1000)))
        var clusterAdmin: RelayClusterAdmin?
        if let cluster {
            services.append(
                ClusterMember(
                    configuration: cluster, admin: relay.admin, view: view, placement: placement, logger: logger,
                    metricsFactory: relay.metricsFactory, metricsPrefix: configuration.metricsPrefix))
            clusterAdmin = RelayClusterAdmin(
                nodes: { try await ClusterMember.nodes(in: cluster) }, drain: { await drain.start().held })
            listening += ", node \(cluster.node) of the cluster at \(cluster.endpoints.joined(separator: ","))"
        }
        if let adminSocket {
            do {
                services.append(
                    try await RelayAdminSocket.start(path: adminSocket, admin: relay.admin, cluster: clusterAdmin))
            } catch {
                throw CommandFailure("--admin-socket: \(error)")
            }
            listening += ", admin socket \(adminSocket)"
        }
        printStatus(listening)
        let reporter = RelayReporter(
            admin: relay.admin, interval: reportEvery > 0 ? .milliseconds(Int(reportEvery * 1000)) : nil)
        // The service group's own workings are no relay event: it logs only what it warns of, or
        // what it is told to at a quieter level.
        var groupLogger = logger
        groupLogger.logLevel = max(logger.logLevel, .notice)
        // A cluster relay drains on SIGTERM (a second one, or Ctrl-C, stops it at once).
        let group = ServiceGroup(
            services: services + [reporter], gracefulShutdownSignals: cluster == nil ? [.sigint, .sigterm] : [.sigint],
            logger: groupLogger)
        await drain.whenDone { await group.triggerGracefulShutdown() }
        let terminations =
            cluster == nil
            ? nil
            : Task {
                for await _ in await UnixSignalsSequence(trapping: .sigterm) {
                    if await !drain.start().started { await group.triggerGracefulShutdown() }
                }
            }
        let timer = duration.map { duration in
            Task {
                try await Task.sleep(for: .milliseconds(Int(duration * 1000)))
                await group.triggerGracefulShutdown()
            }
        }
        try await group.run()
        timer?.cancel()
        terminations?.cancel()
    }
}

extension NumericArgument {
    /// How long a silent member stays, seconds.
    static let livenessTimeout = NumericArgument(0...3_600, unit: "seconds", excludingLowerBound: true)
    /// How often the relay prints its statistics, seconds; 0 for only at the end.
    static let reportInterval = NumericArgument(0...86_400, unit: "seconds")
    /// Most players of one match on one relay.
    static let matchPlayers = NumericArgument(1...100_000)
}
