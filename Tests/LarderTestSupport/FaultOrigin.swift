import Foundation
import Glibc
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) whose answers a test scripts per
/// request, to prove that a client stays bounded in time, memory and disk whatever an origin does.
///
/// Every request head is handed to the route, which picks an ``Answer``: a normal response, a
/// static file with ranges, or one of the faults (never reading, never answering, stalling after
/// the headers, dripping, an endless body, lying headers, a redirect loop, a sudden close).
///
/// ```swift
/// let origin = try FaultOrigin { request in
///     request.path == "/manifest.json" ? .headersThenStall(status: 200, headers: [], contentLength: 1000)
///                                      : .file(root: folder)
/// }
/// defer { origin.stop() }
/// ```
///
/// Connections are kept alive (several requests each) and served one thread apiece, at most
/// `maxConnections` at once; the ones beyond are closed as soon as they are accepted. Sockets are
/// non-blocking and every wait is a short `poll`, so ``stop()`` ends every connection within 2 s
/// whatever the clients do. Routes and ``Answer/stream(status:headers:contentLength:next:)``
/// closures run on connection threads and must return promptly.
public final class FaultOrigin: Sendable {
    /// One request head as the server received it.
    public struct Request: Sendable {
        /// `GET`, `HEAD`, `POST`…
        public var method: String
        /// The request target as sent, query included (`/bundles/a.tar.gz?x=1`).
        public var path: String
        /// Header fields by lowercased name; repeated fields are joined with ", ".
        public var headers: [String: String]
        /// `HTTP/1.1` or `HTTP/1.0`.
        public var version: String
        /// The connection it arrived on: 1 for the first connection the server accepted, 2 for
        /// the next… Equal numbers mean the client reused a connection.
        public var connection: Int

        /// A request, for tests that call a route themselves.
        public init(method: String, path: String, headers: [String: String] = [:], version: String = "HTTP/1.1", connection: Int = 1) {
            self.method = method
            self.path = path
            self.headers = headers
            self.version = version
            self.connection = connection
        }
    }

    let core: Core

    /// The TCP port the server listens on, on 127.0.0.1.
    public let port: Int

    /// Starts listening on 127.0.0.1 at an ephemeral port and accepting connections.
    ///
    /// - Parameters:
    ///   - maxConnections: connections served at once; one more is closed as soon as it is
    ///     accepted, without a word.
    ///   - sendBufferSize: the kernel send buffer of each connection (`SO_SNDBUF`), to keep
    ///     ``bodyBytesSent`` close to what a client actually read; `nil` keeps the kernel's
    ///     default, which grows to several MB on loopback.
    ///   - route: picks the answer to each request; called on the connection's thread.
    /// - Throws: ``FaultOriginError`` when the socket or the accepting thread cannot be set up.
    public init(
        maxConnections: Int = 64, sendBufferSize: Int? = nil, _ route: @escaping @Sendable (Request) -> Answer
    ) throws(FaultOriginError) {
        let (listener, port) = try Self.listen()
        self.port = port
        var status = stat()
        fstat(listener, &status)
        listenerInode = UInt64(status.st_ino)
        core = Core(listener: listener, maxConnections: maxConnections, sendBufferSize: sendBufferSize, route: route)
        try core.start()
    }

    deinit { core.stop() }

    /// The listening socket's inode, as `/proc/self/fd` names it (`socket:[inode]`). Unlike the
    /// port, which another server of the test run may take the moment it is free, it names this
    /// socket only, so a test can tell that the socket was closed (see ``socketIsOpen(inode:)``).
    public let listenerInode: UInt64

    /// Whether this process still has a socket with this inode open (`/proc/self/fd`).
    public static func socketIsOpen(inode: UInt64) -> Bool {
        let name = "socket:[\(inode)]"
        let folder = "/proc/self/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)) == name }
    }

    /// `http://127.0.0.1:<port>/`.
    public var base: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Every request received so far, in the order their heads arrived (including those answered
    /// with ``Answer/acceptAndNeverRead``, whose head is only peeked at).
    public var requests: [Request] { core.state.withLock { $0.requests } }

    /// Response body bytes written to sockets so far, over all connections: the payload only,
    /// without status lines, headers or chunk framing. Bytes still in the kernel's buffers count
    /// as sent.
    public var bodyBytesSent: Int64 { core.state.withLock { $0.bodyBytesSent } }

    /// Connections open now.
    public var openConnections: Int { core.state.withLock { $0.connections.count } }

    /// Connections accepted since the start, refused ones included.
    public var connectionsAccepted: Int { core.state.withLock { $0.accepted } }

    /// Stops accepting, shuts down and closes every connection and joins every thread. Returns
    /// within 2 s whatever the clients do; a thread still inside a route or stream closure after
    /// that is left to finish on its own (and reported on standard error). Later calls return
    /// at once. Also called from `deinit`.
    public func stop() { core.stop() }

    /// A socket listening on 127.0.0.1 at an ephemeral port, and that port.
    private static func listen() throws(FaultOriginError) -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw FaultOriginError("socket", errno: errno) }
        func fail(_ call: String) -> FaultOriginError {
            let error = FaultOriginError(call, errno: errno)
            close(fd)
            return error
        }
        var one: Int32 = 1
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw fail("setsockopt(SO_REUSEADDR)")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw fail("bind(127.0.0.1:0)") }
        guard Glibc.listen(fd, 128) == 0 else { throw fail("listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw fail("getsockname") }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

/// The fault origin could not be set up.
public struct FaultOriginError: Error, CustomStringConvertible {
    /// What failed, and why.
    public var description: String

    init(_ description: String) { self.description = "FaultOrigin: " + description }

    init(_ call: String, errno code: Int32) {
        self.init("\(call) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
