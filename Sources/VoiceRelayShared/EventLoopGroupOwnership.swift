import NIOCore
import NIOPosix

/// The event loop group a relay client or server runs on: the caller's, or a one-thread group made
/// for it and shut down with it.
package struct EventLoopGroupOwnership: Sendable {
    private let group: any EventLoopGroup
    private let ownsGroup: Bool
    /// The loop that holds all of the owner's state.
    package let loop: any EventLoop

    /// - Parameter given: the caller's group, or nil to make a one-thread group of its own.
    package init(_ given: (any EventLoopGroup)?) {
        if let given {
            group = given
            ownsGroup = false
        } else {
            group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            ownsGroup = true
        }
        loop = group.next()
    }

    /// Shuts the group down if it was made here; a caller's group is left running.
    package func shutdownIfOwned() async {
        if ownsGroup { try? await group.shutdownGracefully() }
    }
}
