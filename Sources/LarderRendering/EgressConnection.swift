import Foundation
import Glibc
import LarderEgress
import LarderHost
import LarderSystem

/// One connection to ``EgressFilter``, on its own thread: reads the request head (at most
/// ``ProxyRequest/maximumHeadSize`` within 10 s), asks the policy, resolves the host (a name
/// only to public addresses, ``AddressRule``), then refuses it with a 403 (and reports it) or
/// connects to a checked address (within 10 s) and carries bytes both ways through two 64 KiB
/// buffers until both sides are done or the filter stops.
package struct EgressConnection {
    package let client: Int32
    package let core: EgressFilter.Core

    /// How long the head may take to arrive, and the origin to accept.
    package static let headTimeout = Duration.seconds(10)
    package static let connectTimeout = Duration.seconds(10)

    package func serve() {
        defer { close(client) }
        var buffer: [UInt8] = []
        guard let headEnd = readHead(into: &buffer) else { return }
        let request: ProxyRequest
        do { request = try ProxyRequest.parse(Array(buffer[..<headEnd])) } catch {
            Self.answer(client, status: 400, "not a proxy request: \(error.reason)")
            return
        }
        let settings = core.settings.withLock { $0 }
        guard settings.policy.allows(scheme: request.scheme, host: request.host, port: request.port) else {
            settings.report(BlockedRequest(url: request.url, reason: "network"))
            Self.answer(client, status: 403, "Larder's remote policy does not allow \(request.url)")
            return
        }
        let endpoints: [Endpoint]
        switch Self.resolve(request.host, port: request.port) {
        case .unresolved:
            Self.answer(client, status: 502, "cannot resolve \(request.host)")
            return
        case .nonPublic(let address):
            settings.report(BlockedRequest(url: request.url, reason: "non-public-address"))
            Self.answer(
                client, status: 403,
                "\(request.host) resolves to \(address), not a public address: a name reaches only the public internet "
                    + "(allow the address itself to reach it)")
            return
        case .addresses(let found):
            endpoints = found
        }
        guard let upstream = connect(to: endpoints) else {
            Self.answer(client, status: 502, "cannot connect to \(request.url)")
            return
        }
        defer { close(upstream) }
        let rest = Array(buffer[headEnd...])
        switch request.kind {
        case .tunnel:
            guard Self.send(client, Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)) else { return }
            pump(upstream, pending: rest)
        case .forward:
            pump(upstream, pending: request.forwardedHead + rest)
        }
    }

    /// Reads until the blank line that ends the head; returns the index just past it.
    private func readHead(into buffer: inout [UInt8]) -> Int? {
        let deadline = ContinuousClock.now + Self.headTimeout
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !core.stopping.load(ordering: .acquiring), ContinuousClock.now < deadline {
            var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let count = recv(client, &chunk, chunk.count, 0)
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else { return nil }
            let searchFrom = max(0, buffer.count - 3)
            buffer += chunk[..<count]
            if let end = Self.blankLine(in: buffer, from: searchFrom) { return end }
            guard buffer.count <= ProxyRequest.maximumHeadSize else {
                Self.answer(client, status: 431, "the request head is over \(ProxyRequest.maximumHeadSize) bytes")
                return nil
            }
        }
        return nil
    }

    private static func blankLine(in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = start
        while index + 3 < bytes.count {
            if bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D, bytes[index + 3] == 0x0A { return index + 4 }
            index += 1
        }
        return nil
    }

    /// A connected, non-blocking socket to the first of `endpoints` that answers, or nil.
    private func connect(to endpoints: [Endpoint]) -> Int32? {
        let deadline = ContinuousClock.now + Self.connectTimeout
        for var endpoint in endpoints where !core.stopping.load(ordering: .acquiring) {
            let fd = socket(endpoint.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { continue }
            let length = endpoint.length
            let connected = withUnsafePointer(to: &endpoint.address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
            }
            if connected == 0 { return fd }
            if errno == EINPROGRESS, waitConnected(fd, until: deadline) { return fd }
            close(fd)
        }
        return nil
    }

    private func waitConnected(_ fd: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        while !core.stopping.load(ordering: .acquiring), ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 && failure == 0
        }
        return false
    }

    /// Carries bytes between the client and `upstream` (`pending` first, toward upstream)
    /// until both directions ended, a socket failed or the filter stops.
    private func pump(_ upstream: Int32, pending: [UInt8]) {
        var toUpstream = Direction(from: client, to: upstream, buffer: pending)
        var toClient = Direction(from: upstream, to: client, buffer: [])
        // Over once the origin's side ended and reached the client: a forwarded request asked
        // for `Connection: close`, and a tunnel whose origin closed carries nothing more.
        while !core.stopping.load(ordering: .acquiring), !toClient.done {
            var pollers = [
                pollfd(fd: client, events: toUpstream.readEvents | toClient.writeEvents, revents: 0),
                pollfd(fd: upstream, events: toClient.readEvents | toUpstream.writeEvents, revents: 0),
            ]
            let ready = poll(&pollers, 2, 200)
            if ready < 0 && errno != EINTR { return }
            guard ready > 0 else { continue }
            if pollers[0].revents & Int16(POLLERR | POLLNVAL) != 0 || pollers[1].revents & Int16(POLLERR | POLLNVAL) != 0 { return }
            guard toUpstream.move(), toClient.move() else { return }
        }
    }

    /// One direction of a pump: what was read from `from` and not yet written to `to`.
    private struct Direction {
        let from: Int32
        let to: Int32
        var buffer: [UInt8]
        var ended = false
        var shutDown = false
        static let capacity = 64 * 1024

        init(from: Int32, to: Int32, buffer: [UInt8]) {
            self.from = from
            self.to = to
            self.buffer = buffer
        }

        var done: Bool { ended && buffer.isEmpty }
        var readEvents: Int16 { !ended && buffer.count < Self.capacity ? Int16(POLLIN) : 0 }
        var writeEvents: Int16 { buffer.isEmpty ? 0 : Int16(POLLOUT) }

        /// Reads and writes what can be without blocking; false when a socket failed.
        mutating func move() -> Bool {
            if !ended && buffer.count < Self.capacity {
                var chunk = [UInt8](repeating: 0, count: Self.capacity - buffer.count)
                let count = recv(from, &chunk, chunk.count, 0)
                if count > 0 {
                    buffer += chunk[..<count]
                } else if count == 0 {
                    ended = true
                } else if errno != EAGAIN && errno != EINTR {
                    return false
                }
            }
            if !buffer.isEmpty {
                let count = buffer.withUnsafeBytes { Glibc.send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count > 0 {
                    buffer.removeFirst(count)
                } else if count < 0 && errno != EAGAIN && errno != EINTR {
                    return false
                }
            }
            if done && !shutDown {
                shutDown = true
                shutdown(to, Int32(SHUT_WR))
            }
            return true
        }
    }

    /// Answers `status` with a one-line plain-text body and `Connection: close`, as far as the
    /// socket takes it without waiting long, then closes gently: stops writing and reads what
    /// the client still sends (a request body) for up to half a second, so that closing with
    /// unread bytes does not reset the connection and lose the answer.
    package static func answer(_ fd: Int32, status: Int, _ message: String) {
        let reasons = [400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large", 502: "Bad Gateway", 503: "Service Unavailable"]
        let body = message + "\n"
        let head = "HTTP/1.1 \(status) \(reasons[status] ?? "Error")\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        guard send(fd, Array((head + body).utf8)) else { return }
        shutdown(fd, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .milliseconds(500)
        var drained = 0
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while ContinuousClock.now < deadline, drained < 1 << 20 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else { return }
            drained += count
        }
    }

    /// Answers `status` with a one-line body as far as the socket takes it now, without
    /// waiting (the accepting thread refuses this way), and stops writing.
    package static func answerAtOnce(_ fd: Int32, status: Int, _ message: String) {
        let reasons = [403: "Forbidden", 503: "Service Unavailable"]
        let body = message + "\n"
        let text = "HTTP/1.1 \(status) \(reasons[status] ?? "Error")\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Writes all of `bytes` to a non-blocking socket within 2 s.
    @discardableResult
    package static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        let deadline = ContinuousClock.now + .seconds(2)
        var offset = 0
        while offset < bytes.count, ContinuousClock.now < deadline {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                offset += count
            } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&poller, 1, 100)
            } else {
                return false
            }
        }
        return offset == bytes.count
    }
}
