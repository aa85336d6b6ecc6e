import CLarderSystem
import Dispatch
import Foundation
import Glibc
import LarderEgress
import LarderHost
import LarderSystem
import Synchronization

/// The web engine's only route out: an HTTP proxy on 127.0.0.1 that the renderer's network
/// session is configured to use for every scheme and host (WebKit's custom proxy settings,
/// with no host exempt), which lets a connection through only to an origin ``RemotePolicy``
/// allows and refuses every other with a 403, reporting it.
///
/// The Content-Security-Policy the schemes send stops what a page asks for; this stops what
/// the engine does on its own or what a policy does not cover (`<link rel=preconnect>`, a
/// link's `ping`, a document a policy does not reach), because the web processes have no
/// network of their own (the sandbox unshares it) and the network process has no route but
/// this one.
///
/// What it speaks: `CONNECT host:port` (a tunnel, for `https:` and `wss:`) and absolute-form
/// requests (`GET http://host:port/path`, for `http:` and `ws:`), which it forwards in
/// origin form with `Connection: close` (so each connection carries one origin's request),
/// or as an upgrade for a WebSocket. A name is connected only to public addresses
/// (``AddressRule``: resolved once, every address checked, the checked ones connected to).
///
/// Only the engine's network process may use it (``EgressPeers``: the process holding the
/// connection's other socket, as `/proc` tells): a connection from any other local process is
/// refused at once, holds nothing and cannot add to a report. One thread accepts and one serves each
/// connection, at most ``maximumConnectionsPerPeer`` at once (``EgressAdmission``); one past
/// them is refused with a 503 and reported (``EgressOverflow``), so no refusal goes unseen.
/// Every wait is a short `poll`, so ``stop()`` ends everything within a second.
package final class EgressFilter: Sendable {
    /// The TCP port on 127.0.0.1.
    package let port: Int
    /// Connections the network process may hold at once; one more is refused and reported.
    package static let maximumConnectionsPerPeer = 64

    package let core: Core

    /// Starts listening on 127.0.0.1 at an ephemeral port, refusing everything until
    /// ``configure(policy:report:)``.
    /// - Parameter peers: whose connections it serves: the engine's network process, but in
    ///   the filter's own tests.
    /// - Throws: ``HostError/Code/renderer`` naming `egress filter` when the socket or the
    ///   thread cannot be set up.
    package init(peers: EgressPeers = .networkProcess) throws(HostError) {
        let (listener, port) = try Self.listen()
        self.port = port
        core = Core(listener: listener, peers: peers)
        let core = core
        core.threads.enter()
        let thread = Thread { core.acceptLoop() }
        thread.name = "larder-egress-filter"
        thread.start()
    }

    deinit { stop() }

    /// The proxy URI for WebKit's network proxy settings.
    package var proxyURI: String { "http://127.0.0.1:\(port)" }

    /// Sets what is allowed from now on and where refusals are reported (a renderer taking
    /// this filter's web context).
    package func configure(policy: RemotePolicy, report: @escaping @Sendable (BlockedRequest) -> Void) {
        core.settings.withLock { $0 = Settings(policy: policy, report: report) }
    }

    /// Refuses everything again and reports nowhere (the renderer let its context go).
    package func reset() {
        core.settings.withLock { $0 = Settings(policy: .blockAll, report: { _ in }) }
    }

    /// Stops accepting, ends every connection and waits (at most 2 s) for the threads.
    package func stop() {
        guard core.stopping.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        _ = core.threads.wait(timeout: .now() + 2)
    }

    /// What a connection is checked against.
    package struct Settings: Sendable {
        var policy: RemotePolicy
        var report: @Sendable (BlockedRequest) -> Void
    }

    /// The state the threads share.
    package final class Core: Sendable {
        let listener: Int32
        let peers: EgressPeers
        let stopping = Atomic<Bool>(false)
        let settings = Locked(Settings(policy: .blockAll, report: { _ in }))
        let admission = Locked(EgressAdmission(perPeer: EgressFilter.maximumConnectionsPerPeer))
        /// Connections refused because another process than the ones served made them.
        let foreignRefusals = Atomic<Int>(0)
        /// Entered by each thread while it runs.
        let threads = DispatchGroup()

        init(listener: Int32, peers: EgressPeers) {
            self.listener = listener
            self.peers = peers
        }

        func acceptLoop() {
            var overflow = EgressOverflow()
            var networkProcess: pid_t?
            defer {
                overflow.closeAll()
                close(listener)
                threads.leave()
            }
            while !stopping.load(ordering: .acquiring) {
                var pollers = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)] + overflow.pollers
                guard poll(&pollers, nfds_t(pollers.count), 200) > 0 else { continue }
                let report = settings.withLock { $0.report }
                if pollers[0].revents != 0 { accept(into: &overflow, networkProcess: &networkProcess, report: report) }
                overflow.advance(pollers.dropFirst(), report: report)
            }
        }

        /// Takes the next connection and serves, refuses or queues it as ``EgressAdmission``
        /// decides.
        private func accept(into overflow: inout EgressOverflow, networkProcess: inout pid_t?, report: (BlockedRequest) -> Void) {
            let client = larder_accept(listener)
            guard client >= 0 else { return }  // EAGAIN, EINTR, ECONNABORTED: try again
            let peer = peers.peer(of: client, remembered: &networkProcess)
            switch admission.withLock({ $0.admit(peer: peer, served: peer != nil) }) {
            case .foreign:
                foreignRefusals.add(1, ordering: .relaxed)
                EgressConnection.answerAtOnce(client, status: 403, "only the web engine's network process may use this proxy")
                close(client)
            case .full:
                overflow.add(client, report: report)
            case .serve:
                threads.enter()
                let thread = Thread { [self] in
                    EgressConnection(client: client, core: self).serve()
                    if let peer { admission.withLock { $0.release(peer) } }
                    threads.leave()
                }
                thread.name = "larder-egress-connection"
                thread.start()
            }
        }
    }

    /// A socket listening on 127.0.0.1 at an ephemeral port, and that port.
    private static func listen() throws(HostError) -> (Int32, Int) {
        func failure(_ call: String) -> HostError {
            HostError(.renderer, "the egress filter cannot \(call): \(Errno.current)", resource: "egress filter")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw failure("create a socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard bound == 0, Glibc.listen(fd, 128) == 0,
            withUnsafeMutablePointer(to: &address, {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }) == 0
        else {
            let error = failure("listen on 127.0.0.1")
            close(fd)
            throw error
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
