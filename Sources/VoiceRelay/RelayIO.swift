import NIOCore

/// Carries out what `RelayState` decides: the one place the relay's state meets its sockets.
///
/// Each input (a datagram, a frame, a connection opening, closing or filling up, an admin call,
/// housekeeping) goes to the state, and the actions it appended are carried out at once, so a
/// received buffer is released (or staged once into the batch sender) before the next read.
/// Forwarded UDP copies and UDP replies are flushed at the end of a read batch, or at once for
/// anything that did not come from a UDP read.
///
/// Thread contract: the relay's event loop, like `RelayState`.
final class RelayIO {
    let state: RelayState
    /// The UDP handler's context: writing through it skips the pipeline walk and the generic
    /// `Channel.write` (with its dynamic casts) that each forwarded copy would otherwise pay.
    var udpContext: ChannelHandlerContext?
    /// Sends forwarded UDP copies a read batch at a time; nil sends them through `udpContext`.
    var udpBatch: RelayDatagramBatchSender? {
        didSet {
            udpBatch?.overflow = { [unowned self] payload, address in writeThroughPipeline(payload, to: address) }
        }
    }
    /// Where matches live in a cluster; nil for a relay on its own.
    private let placement: (any RelayPlacement)?
    private let loop: any EventLoop
    /// False once the relay has shut down: a placement answering later is dropped.
    private let isRunning: @Sendable () -> Bool
    private var connections: [RelayConnectionID: any Channel] = [:]
    private var lastConnection: UInt64 = 0
    private var udpFlushPending = false
    private var carryingOut = false

    init(
        state: RelayState, placement: (any RelayPlacement)? = nil, loop: any EventLoop,
        isRunning: @escaping @Sendable () -> Bool = { true }
    ) {
        self.state = state
        self.placement = placement
        self.loop = loop
        self.isRunning = isRunning
        state.placement.isClustered = placement != nil
    }

    // MARK: Inputs

    /// Hands one datagram or frame to the state and carries out what it decided. UDP writes wait
    /// for `readComplete()`.
    func received(_ buffer: ByteBuffer, from source: RelaySource, now: UInt64) {
        state.received(buffer, from: source, now: now)
        carryOut()
        if case .tcp = source { flushUDP() }
    }

    /// The end of a UDP read batch.
    func readComplete() { flushUDP() }

    /// Registers a TCP connection that just opened.
    func connectionOpened(_ channel: any Channel) -> RelayConnectionID {
        lastConnection &+= 1
        let connection = RelayConnectionID(rawValue: lastConnection)
        connections[connection] = channel
        state.connectionOpened(connection, from: channel.remoteAddress, now: NIODeadline.now().uptimeNanoseconds)
        // A connection over its address's limit is closed now, not at the next packet or sweep.
        carryOut()
        return connection
    }

    /// Whether `connection` may go on to send a frame of `length` bytes; if not, it is closed.
    /// Asked at every TCP frame, so an admitted one carries nothing out: the read's UDP batch
    /// stays whole.
    func frameAnnounced(length: Int, on connection: RelayConnectionID) -> Bool {
        guard !state.tcpFrameAnnounced(length: length, on: connection) else { return true }
        carryOut()
        return false
    }

    func connectionClosed(_ connection: RelayConnectionID) {
        connections[connection] = nil
        update { $0.tcpClosed(connection) }
    }

    func connectionWritabilityChanged(_ connection: RelayConnectionID, isWritable: Bool) {
        state.connectionWritabilityChanged(connection, isWritable: isWritable)
    }

    /// Runs `body` on the state (housekeeping, admin calls) and carries out and flushes what it decided.
    func update<Result>(_ body: (RelayState) -> Result) -> Result {
        let result = body(state)
        carryOut()
        flushUDP()
        return result
    }

    // MARK: Carrying out

    private func carryOut() {
        // Closing a connection can come back here at once (its handler reports it closed, and the
        // state answers with actions of its own): the loop under way carries those out too.
        guard !carryingOut else { return }
        carryingOut = true
        defer { carryingOut = false }
        // By index, not `for … in`: an iterator would hold the storage, and actions appended
        // meanwhile would then copy it.
        var index = 0
        while index < state.actions.count {
            let action = state.actions[index]
            index += 1
            switch action {
            case .forward(let buffer, let copies):
                guard udpContext != nil else { continue }
                // Staged into the batch sender once, and shared by every copy.
                if let batch = udpBatch, let payload = batch.stage(buffer) {
                    for copy in copies { batch.append(payload, to: state.forwardDestinations[copy]) }
                } else {
                    for copy in copies {
                        writeThroughPipeline(buffer, to: state.forwardDestinations[copy].socketAddress)
                    }
                }
                udpFlushPending = true
            case .datagram(let buffer, let address):
                guard let udp = udpContext else { continue }
                udp.write(NIOAny(AddressedEnvelope(remoteAddress: address, data: buffer)), promise: nil)
                udpFlushPending = true
            case .frame(let buffer, let connection):
                connections[connection]?.writeAndFlush(buffer, promise: nil)
            case .close(let connection):
                connections[connection]?.close(promise: nil)
            case .place(let match):
                ask { placement in
                    let decision = await placement.place(match: match)
                    return { $0.placed(match, decision, now: NIODeadline.now().uptimeNanoseconds) }
                }
            case .moveAway(let match):
                ask { placement in
                    let decision = await placement.moveAway(match: match)
                    return { $0.movedAway(match, decision) }
                }
            case .release(let match):
                ask { placement in
                    await placement.release(match: match)
                    return { _ in }
                }
            case .spill(let match):
                ask { placement in
                    let decision = await placement.spill(match: match)
                    return { $0.spilled(match, decision, now: NIODeadline.now().uptimeNanoseconds) }
                }
            case .partHasRoom(let match):
                ask { placement in
                    await placement.partHasRoom(match: match)
                    return { _ in }
                }
            }
        }
        state.actions.removeAll(keepingCapacity: true)
        state.forwardDestinations.removeAll(keepingCapacity: true)
    }

    /// Asks the cluster (off the loop), then hands its answer to the state back on the loop.
    private func ask(_ question: @escaping @Sendable (any RelayPlacement) async -> @Sendable (RelayState) -> Void) {
        guard let placement else { return }
        let bound = NIOLoopBound(self, eventLoop: loop)
        let (loop, isRunning) = (self.loop, self.isRunning)
        Task {
            let answer = await question(placement)
            guard isRunning() else { return }
            loop.execute { bound.value.update(answer) }
        }
    }

    /// Queues one forwarded copy on the UDP channel's own write path (no batch sender, or one
    /// whose socket was full), or has the state count it dropped past the socket's water mark.
    private func writeThroughPipeline(_ payload: ByteBuffer, to address: SocketAddress) {
        guard let udp = udpContext, udp.channel.isWritable else { return state.datagramCongested(to: address) }
        udp.write(NIOAny(AddressedEnvelope(remoteAddress: address, data: payload)), promise: nil)
    }

    private func flushUDP() {
        guard udpFlushPending else { return }
        udpFlushPending = false
        udpBatch?.flush()
        udpContext?.flush()
    }
}
