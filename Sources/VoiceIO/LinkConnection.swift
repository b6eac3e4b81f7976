import NIOCore
import Synchronization
import VoiceWire

/// The state of one TCP connection that carries a signalling link: the hello exchange, frames that
/// arrived before anyone listens, and how the connection ended.
///
/// Thread contract: frames and the end of the connection are reported by the channel handler on the
/// connection's event loop, one at a time; receivers are installed on that loop too (see `setReceiver`),
/// so frames reach them in arrival order. Everything else may be called from any thread: all mutable
/// state is behind one mutex, and callbacks run after it is released.
final class LinkConnection: Sendable {
    typealias HelloHandler = @Sendable (Result<String, SignallingLinkError>) -> Void
    typealias Receiver = @Sendable (SignallingFrame) -> Void
    typealias EndHandler = @Sendable (SignallingLinkEnding) -> Void

    private struct State {
        var channel: (any Channel)?
        var helloHandler: HelloHandler?
        /// The outcome of the hello exchange, once known.
        var helloResult: Result<String, SignallingLinkError>?
        var receiver: Receiver?
        /// Frames after the hello that arrived before a receiver was installed.
        var pending: [SignallingFrame] = []
        var ending: SignallingLinkEnding?
        var waiters: [CheckedContinuation<SignallingLinkEnding, Never>] = []
        var endHandlers: [EndHandler] = []
    }

    private let state = Mutex(State())

    func setChannel(_ channel: any Channel) {
        state.withLock { $0.channel = channel }
    }

    var channel: (any Channel)? { state.withLock { $0.channel } }

    var ending: SignallingLinkEnding? { state.withLock { $0.ending } }

    /// Whether the peer's hello has arrived.
    var hasSaidHello: Bool {
        state.withLock { state in
            if case .success = state.helloResult { return true }
            return false
        }
    }

    // MARK: The hello exchange

    /// `handler` gets the peer's participant ID or the reason there is none, exactly once (at once if
    /// the outcome is already known).
    func onHello(_ handler: @escaping HelloHandler) {
        let known: Result<String, SignallingLinkError>? = state.withLock { state in
            if let result = state.helloResult { return result }
            state.helloHandler = handler
            return nil
        }
        if let known { handler(known) }
    }

    /// Settles the hello exchange unless it is settled already (the first outcome wins).
    func completeHello(_ result: Result<String, SignallingLinkError>) {
        let handler: HelloHandler? = state.withLock { state in
            guard state.helloResult == nil else { return nil }
            state.helloResult = result
            defer { state.helloHandler = nil }
            return state.helloHandler
        }
        handler?(result)
    }

    // MARK: Frames in

    /// Handles one frame from the peer (on the event loop). Returns false when the connection must close.
    func received(_ frame: SignallingFrame) -> Bool {
        // One look at the state per frame: whether the hello is done and, for data, who takes it.
        let (saidHello, receiver): (Bool, Receiver?) = state.withLock { state in
            guard case .success = state.helloResult else { return (false, nil) }
            switch frame {
            case .signalling, .realTime:
                if state.receiver == nil { state.pending.append(frame) }
                return (true, state.receiver)
            default:
                return (true, nil)
            }
        }
        guard saidHello else {
            switch frame {
            case .hello(let participant):
                completeHello(.success(participant))
                return true
            case .refused(let reason):
                completeHello(.failure(.refused(reason: reason)))
                end(.peerHungUp)
                return false
            default:
                end(.protocolError(.helloExpected(got: frame.kind)))
                return false
            }
        }
        switch frame {
        case .hello:
            end(.protocolError(.repeatedHello))
            return false
        case .bye, .refused:
            end(.peerHungUp)
            return false
        case .signalling, .realTime:
            receiver?(frame)
            return true
        }
    }

    /// Installs the receiver on the event loop and hands it what was held back, so nothing overtakes.
    func setReceiver(_ receiver: @escaping Receiver) {
        guard let loop = channel?.eventLoop else { return }
        loop.execute { [self] in
            let held = state.withLock { state in
                state.receiver = receiver
                defer { state.pending.removeAll() }
                return state.pending
            }
            for frame in held { receiver(frame) }
        }
    }

    // MARK: Frames out

    /// Queues `frame`; never blocks. Real-time frames are dropped while the connection is backed up:
    /// late voice is worth nothing, and queueing it would delay the signalling behind it.
    func send(_ frame: SignallingFrame) {
        guard let channel = state.withLock({ $0.ending == nil ? $0.channel : nil }) else { return }
        if case .realTime = frame, !channel.isWritable { return }
        var buffer = channel.allocator.buffer(capacity: frame.encodedByteCount)
        frame.write { buffer.writeBytes($0) }
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// Says bye and closes the connection; returns once it is closed.
    func close() async {
        guard let channel else { return }
        send(.bye)
        end(.closedLocally)
        try? await channel.close()
    }

    // MARK: The end

    /// Records how the connection ended (the first report wins) and tells everyone waiting.
    func end(_ ending: SignallingLinkEnding) {
        let (waiters, handlers, recorded): ([CheckedContinuation<SignallingLinkEnding, Never>], [EndHandler], Bool) =
            state.withLock { state in
                guard state.ending == nil else { return ([], [], false) }
                state.ending = ending
                defer {
                    state.waiters.removeAll()
                    state.endHandlers.removeAll()
                }
                return (state.waiters, state.endHandlers, true)
            }
        guard recorded else { return }
        switch ending {
        case .protocolError(let error): completeHello(.failure(.protocolError(error)))
        default: completeHello(.failure(.closedDuringHello))
        }
        for waiter in waiters { waiter.resume(returning: ending) }
        for handler in handlers { handler(ending) }
    }

    func waitForEnding() async -> SignallingLinkEnding {
        await withCheckedContinuation { continuation in
            let ending: SignallingLinkEnding? = state.withLock { state in
                if let ending = state.ending { return ending }
                state.waiters.append(continuation)
                return nil
            }
            if let ending { continuation.resume(returning: ending) }
        }
    }

    func onEnd(_ handler: @escaping EndHandler) {
        let ending: SignallingLinkEnding? = state.withLock { state in
            if let ending = state.ending { return ending }
            state.endHandlers.append(handler)
            return nil
        }
        if let ending { handler(ending) }
    }
}
