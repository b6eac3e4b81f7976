import CoreMetrics
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOPosix
import Prometheus
import ServiceLifecycle
import VoiceRelayShared

/// A selective-forwarding relay for voice and game data: UDP and length-framed TCP on one port,
/// token-gated joins, forwarding by the sealed envelope's clear header, never opening it.
///
/// All membership and forwarding state lives on one event loop (the relay uses one core); the
/// sockets are registered on that loop so the per-packet path takes no locks. Run it as a
/// swift-service-lifecycle `Service`, or call `start()` and `shutdown()` yourself.
public final class RelayServer: Service, Sendable {
    public let configuration: RelayConfiguration
    private let logger: Logger
    private let eventLoops: EventLoopGroupOwnership
    private let loop: any EventLoop
    private let io: NIOLoopBoundBox<RelayIO>
    private let placement: (any RelayPlacement)?
    private let metrics: RelayMetrics
    private let registry: PrometheusCollectorRegistry?
    /// Where the relay's metrics go (its Prometheus endpoint's, or the process's `MetricsSystem`),
    /// for what runs beside it to add its own.
    public let metricsFactory: any MetricsFactory
    private let running = NIOLockedValueBox(Running())

    private struct Running {
        var started = false
        var stopped = false
        var channels: [any Channel] = []
        var housekeeping: RepeatedTask?
        var localPort: Int?
        var prometheusPort: Int?
    }

    /// - Parameters:
    ///   - eventLoopGroup: where to run; nil makes (and later shuts down) a one-thread group.
    ///   - placement: where matches live when the relay is one of a cluster; nil holds every match.
    public init(
        configuration: RelayConfiguration, eventLoopGroup: (any EventLoopGroup)? = nil,
        logger: Logger = Logger(label: "voicechat.relay"), placement: (any RelayPlacement)? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
        eventLoops = EventLoopGroupOwnership(eventLoopGroup)
        let loop = eventLoops.loop
        self.loop = loop
        self.placement = placement
        let running = self.running
        let io = RelayIO(
            state: RelayState(configuration: configuration, logger: logger), placement: placement, loop: loop,
            isRunning: { running.withLockedValue { !$0.stopped } })
        self.io = NIOLoopBoundBox.makeBoxSendingValue(io, eventLoop: loop)
        if configuration.prometheusPort != nil {
            let registry = PrometheusCollectorRegistry()
            self.registry = registry
            metricsFactory = PrometheusMetricsFactory(registry: registry)
        } else {
            registry = nil
            metricsFactory = MetricsSystem.factory
        }
        metrics = RelayMetrics(prefix: configuration.metricsPrefix, factory: metricsFactory)
    }

    /// The port UDP and TCP listen on, once started.
    public var localPort: Int? { running.withLockedValue { $0.localPort } }
    /// The Prometheus endpoint's port, once started with `prometheusPort` set.
    public var prometheusPort: Int? { running.withLockedValue { $0.prometheusPort } }

    public var admin: RelayAdmin {
        let running = self.running
        return RelayAdmin(loop: loop, io: io, isRunning: { running.withLockedValue { !$0.stopped } })
    }

    /// Binds UDP and TCP on the configured port and starts forwarding; returns the port.
    @discardableResult
    public func start() async throws(RelayServerError) -> Int {
        let alreadyStarted = running.withLockedValue { running in
            defer { running.started = true }
            return running.started
        }
        guard !alreadyStarted else { throw .alreadyStarted }
        var channels: [any Channel] = []
        do {
            let (udp, tcp) = try await bindSockets()
            channels = [udp, tcp]
            let port = udp.localAddress?.port ?? configuration.port
            var prometheusPort: Int?
            if let registry, let requested = configuration.prometheusPort {
                let http: any Channel
                do {
                    http = try await PrometheusEndpoint.bind(
                        host: configuration.prometheusHost, port: requested, registry: registry, on: loop)
                } catch {
                    throw RelayServerError.bindFailed(
                        what: "Prometheus endpoint", host: configuration.prometheusHost, port: requested,
                        reason: RelayServerError.reason(error))
                }
                channels.append(http)
                prometheusPort = http.localAddress?.port
            }
            let housekeeping = scheduleHousekeeping()
            running.withLockedValue {
                $0.channels = channels
                $0.housekeeping = housekeeping
                $0.localPort = port
                $0.prometheusPort = prometheusPort
            }
            logger.info("relay listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
            return port
        } catch let error as RelayServerError {
            for channel in channels { try? await channel.close() }
            throw error
        } catch {
            for channel in channels { try? await channel.close() }
            throw .bindFailed(
                what: "sockets", host: configuration.host, port: configuration.port,
                reason: RelayServerError.reason(error))
        }
    }

    /// Binds UDP, then TCP on the same port number (retrying with a fresh port when 0 was asked for
    /// and TCP finds the UDP socket's ephemeral port taken).
    private func bindSockets() async throws(RelayServerError) -> (any Channel, any Channel) {
        let io = self.io
        let attempts = configuration.port == 0 ? 8 : 1
        var lastError = ""
        for _ in 0..<attempts {
            let udp: any Channel
            do {
                // Opened here rather than by NIO so the batch sender can write to its descriptor.
                let descriptor = try RelayDatagramSocket.open(host: configuration.host, port: configuration.port)
                udp = try await DatagramBootstrap(group: loop)
                    .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
                    .channelOption(.socketOption(.so_sndbuf), value: 4 << 20)
                    .channelOption(.datagramVectorReadMessageCount, value: 64)
                    .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 64 * 2048))
                    .channelOption(.writeBufferWaterMark, value: .init(low: 128 << 10, high: 256 << 10))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            let relayIO = io.value
                            relayIO.udpBatch = RelayDatagramBatchSender(descriptor: descriptor)
                            try channel.pipeline.syncOperations.addHandler(RelayUDPHandler(io: relayIO))
                        }
                    }
                    .withBoundSocket(descriptor).get()
            } catch {
                throw .bindFailed(
                    what: "UDP socket", host: configuration.host, port: configuration.port,
                    reason: RelayServerError.reason(error))
            }
            let port = udp.localAddress?.port ?? configuration.port
            let waterMark = configuration.limits.tcpWriteBufferBytes
            do {
                let tcp = try await ServerBootstrap(group: loop, childGroup: loop)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                    .childChannelOption(.writeBufferWaterMark, value: .init(low: waterMark / 2, high: waterMark))
                    .childChannelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            let operations = channel.pipeline.syncOperations
                            let handler = RelayTCPHandler(io: io.value)
                            try operations.addHandler(
                                ByteToMessageHandler(RelayServerFrameDecoder(io: io.value, handler: handler)))
                            try operations.addHandler(LengthFieldPrepender(lengthFieldBitLength: .twoBytes))
                            try operations.addHandler(handler)
                        }
                    }
                    .bind(host: configuration.host, port: port).get()
                return (udp, tcp)
            } catch {
                lastError = "\(error)"
                try? await udp.close()
            }
        }
        throw .bindFailed(what: "TCP listener", host: configuration.host, port: configuration.port, reason: lastError)
    }

    private func scheduleHousekeeping() -> RepeatedTask {
        let io = self.io
        let metrics = self.metrics
        let published = NIOLoopBoundBox.makeBoxSendingValue(PublishedFigures(), eventLoop: loop)
        let interval = TimeAmount(configuration.housekeepingInterval)
        return loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            let now = NIODeadline.now().uptimeNanoseconds
            let relay = io.value.update { relay in
                relay.sweep(now: now)
                return relay
            }
            let before = published.value
            metrics.publish(
                relay.counters, since: before.counters, joins: relay.joins, joinsBefore: before.joins,
                participants: relay.participantCount, matches: relay.matches.count,
                currentSenders: relay.currentSenders(now: now))
            published.value = PublishedFigures(counters: relay.counters, joins: relay.joins)
        }
    }

    /// Starts (if needed) and forwards until graceful shutdown or cancellation, then shuts down.
    public func run() async throws {
        let started = running.withLockedValue { $0.started }
        if !started { try await start() }
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled: shut down all the same.
        }
        await shutdown()
    }

    /// How many matches the relay holds (with a member or a signalling attachment).
    public func heldMatches() async -> Int {
        guard running.withLockedValue({ $0.started && !$0.stopped }) else { return 0 }
        let io = self.io
        return (try? await loop.submit { io.value.state.heldMatches.count }.get()) ?? 0
    }

    /// Drains a relay of a cluster: it takes no new matches, gives each match it holds a new home
    /// and tells its players to move there (each joins the new home before it leaves this one).
    /// Returns once the relay holds no match, or at `deadline`, with the matches still held; then
    /// shut the relay down. A relay on its own has nowhere to move its matches: it returns at once.
    public func drain(within deadline: Duration) async -> Int {
        guard let placement else { return 0 }
        await placement.setDraining(true)
        let (io, loop, clock) = (self.io, self.loop, ContinuousClock())
        let start = clock.now
        while true {
            guard running.withLockedValue({ $0.started && !$0.stopped }) else { return 0 }
            let held = try? await loop.submit {
                io.value.update { state in
                    if !state.placement.isDraining { state.beginDrain() }
                    return state.heldMatches.count
                }
            }.get()
            guard let held, held > 0 else { return 0 }
            if clock.now - start >= deadline {
                logger.warning("drain deadline reached; the matches left end here", metadata: ["matches": "\(held)"])
                return held
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Tells every member the relay is going away, closes the sockets and, if it made its own
    /// event loop group, shuts that down. Safe to call more than once.
    public func shutdown() async {
        let (channels, housekeeping, wasStopped) = running.withLockedValue { running in
            defer {
                running.stopped = true
                running.channels = []
                running.housekeeping = nil
            }
            return (running.channels, running.housekeeping, running.stopped)
        }
        guard !wasStopped else { return }
        housekeeping?.cancel()
        let io = self.io
        try? await loop.submit { io.value.update { $0.shutDown() } }.get()
        for channel in channels { try? await channel.close() }
        await eventLoops.shutdownIfOwned()
        logger.info("relay stopped")
    }
}

/// The figures last handed to swift-metrics, to publish only their growth.
private struct PublishedFigures {
    var counters = RelayCounters()
    var joins = 0
}
