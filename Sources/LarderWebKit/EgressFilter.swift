import CLarderSystem
import Dispatch
import Foundation
import Glibc
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
/// or as an upgrade for a WebSocket. One thread accepts and one serves each connection, at
/// most ``maximumConnections`` at once (the rest get a 503); every wait is a short `poll`, so
/// ``stop()`` ends everything within a second.
final class EgressFilter: Sendable {
    /// The TCP port on 127.0.0.1.
    let port: Int
    /// Connections served at once; one more is answered 503 and closed.
    static let maximumConnections = 64

    let core: Core

    /// Starts listening on 127.0.0.1 at an ephemeral port, refusing everything until
    /// ``configure(policy:report:)``.
    /// - Throws: ``HostError/Code/renderer`` naming `egress filter` when the socket or the
    ///   thread cannot be set up.
    init() throws(HostError) {
        let (listener, port) = try Self.listen()
        self.port = port
        core = Core(listener: listener)
        let core = core
        core.threads.enter()
        let thread = Thread { core.acceptLoop() }
        thread.name = "larder-egress-filter"
        thread.start()
    }

    deinit { stop() }

    /// The proxy URI for WebKit's network proxy settings.
    var proxyURI: String { "http://127.0.0.1:\(port)" }

    /// Sets what is allowed from now on and where refusals are reported (a renderer taking
    /// this filter's web context).
    func configure(policy: RemotePolicy, report: @escaping @Sendable (BlockedRequest) -> Void) {
        core.settings.withLock { $0 = Settings(policy: policy, report: report) }
    }

    /// Refuses everything again and reports nowhere (the renderer let its context go).
    func reset() {
        core.settings.withLock { $0 = Settings(policy: .blockAll, report: { _ in }) }
    }

    /// Stops accepting, ends every connection and waits (at most 2 s) for the threads.
    func stop() {
        guard core.stopping.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        _ = core.threads.wait(timeout: .now() + 2)
    }

    /// What a connection is checked against.
    struct Settings: Sendable {
        var policy: RemotePolicy
        var report: @Sendable (BlockedRequest) -> Void
    }

    /// The state the threads share.
    final class Core: Sendable {
        let listener: Int32
        let stopping = Atomic<Bool>(false)
        let settings = Locked(Settings(policy: .blockAll, report: { _ in }))
        let active = Atomic<Int>(0)
        /// Entered by each thread while it runs.
        let threads = DispatchGroup()

        init(listener: Int32) { self.listener = listener }

        func acceptLoop() {
            defer {
                close(listener)
                threads.leave()
            }
            while !stopping.load(ordering: .acquiring) {
                var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 200) > 0 else { continue }
                let client = larder_accept(listener)
                guard client >= 0 else { continue }  // EAGAIN, EINTR, ECONNABORTED: try again
                guard active.add(1, ordering: .acquiringAndReleasing).newValue <= EgressFilter.maximumConnections else {
                    active.subtract(1, ordering: .acquiringAndReleasing)
                    EgressConnection.answer(client, status: 503, "too many connections at once")
                    close(client)
                    continue
                }
                threads.enter()
                let thread = Thread { [self] in
                    EgressConnection(client: client, core: self).serve()
                    active.subtract(1, ordering: .acquiringAndReleasing)
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
