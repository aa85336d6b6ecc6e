import Foundation
import Glibc
import LarderHost
import LarderSystem
import LarderTestSupport
@testable import LarderWebKit
import Testing

/// The egress filter on its own: what it reads as a proxy request, and what it lets through.
@Suite struct EgressFilterTests {
    @Test(arguments: [
        ("CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n", ProxyRequest.Kind.tunnel, "https", "api.example.com", 443, "https://api.example.com"),
        ("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n", .tunnel, "https", "[::1]", 8443, "https://[::1]:8443"),
        ("GET http://127.0.0.1:8080/a/b?c=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", .forward, "http", "127.0.0.1", 8080, "http://127.0.0.1:8080/a/b?c=1"),
        ("POST HTTP://Example.COM?x HTTP/1.1\r\n\r\n", .forward, "http", "example.com", 80, "http://example.com/?x"),
        ("GET ws://127.0.0.1:9/socket HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", .forward, "http", "127.0.0.1", 9, "http://127.0.0.1:9/socket"),
    ])
    func readsWhatAProxyIsAsked(_ head: String, _ kind: ProxyRequest.Kind, _ scheme: String, _ host: String, _ port: Int, _ url: String) throws {
        let request = try ProxyRequest.parse(Array(head.utf8))
        #expect(request.kind == kind)
        #expect(request.scheme == scheme)
        #expect(request.host == host)
        #expect(request.port == port)
        #expect(request.url == url)
    }

    @Test func forwardsInOriginFormWithoutProxyFieldsAndOneRequestAConnection() throws {
        let head = "GET http://127.0.0.1:8080/a?b HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive\r\nProxy-Authorization: Basic eA==\r\nAccept: */*\r\n\r\n"
        let forwarded = String(decoding: try ProxyRequest.parse(Array(head.utf8)).forwardedHead, as: UTF8.self)
        #expect(forwarded == "GET /a?b HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n")
        let upgrade = "GET ws://h:1/s HTTP/1.1\r\nHost: h:1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        #expect(String(decoding: try ProxyRequest.parse(Array(upgrade.utf8)).forwardedHead, as: UTF8.self)
            == "GET /s HTTP/1.1\r\nHost: h:1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
    }

    @Test(arguments: [
        "GET /relative HTTP/1.1\r\n\r\n",  // origin form: not for a proxy
        "GET ftp://example.com/ HTTP/1.1\r\n\r\n",
        "GET file:///etc/passwd HTTP/1.1\r\n\r\n",
        "CONNECT example.com HTTP/1.1\r\n\r\n",  // no port
        "CONNECT example.com:0 HTTP/1.1\r\n\r\n",
        "CONNECT example.com:65536 HTTP/1.1\r\n\r\n",
        "GET http://user:pw@example.com/ HTTP/1.1\r\n\r\n",
        "GET http://exa mple.com/ HTTP/1.1\r\n\r\n",
        "GET http://example.com/ HTTP/2\r\n\r\n",
        "GET http://example.com/ HTTP/1.1\r\nBroken header\r\n\r\n",
        "GET http://example.com/ HTTP/1.1\r\nX: a\nInjected: b\r\n\r\n",
        "GET http://exämple.com/ HTTP/1.1\r\n\r\n",
        "GET http://example.com/ HTTP/1.1\r\n",  // no blank line
    ])
    func refusesWhatIsNotAProxyRequest(_ head: String) {
        #expect(throws: ProxyRequest.Malformed.self) { try ProxyRequest.parse(Array(head.utf8)) }
    }

    @Test func lettsThroughOnlyWhatThePolicyAllowsAndReportsTheRest() async throws {
        let origin = try FaultOrigin { request in .respond(status: 200, body: Array("ok \(request.path)\n".utf8)) }
        defer { origin.stop() }
        let filter = try EgressFilter()
        defer { filter.stop() }
        let reports = Locked<[BlockedRequest]>([])
        filter.configure(policy: try RemotePolicy(allowing: ["http://127.0.0.1:\(origin.port)"])) { blocked in reports.withLock { $0.append(blocked) } }

        let allowed = try exchange(filter.port, "GET http://127.0.0.1:\(origin.port)/hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(allowed.hasPrefix("HTTP/1.1 200"), "\(allowed)")
        #expect(allowed.hasSuffix("ok /hello\n"))
        #expect(origin.requests.map(\.path) == ["/hello"])
        #expect(origin.requests.first?.headers["connection"] == "close")

        // The same host on another port, a tunnel to it, a name for it: refused before any connection.
        for head in [
            "GET http://127.0.0.1:\(origin.port + 1)/x HTTP/1.1\r\n\r\n", "CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\n\r\n",
            "GET http://localhost:\(origin.port)/x HTTP/1.1\r\n\r\n",
        ] {
            let refused = try exchange(filter.port, head)
            #expect(refused.hasPrefix("HTTP/1.1 403"), "\(refused)")
        }
        #expect(origin.connectionsAccepted == 1)
        #expect(reports.withLock { $0 } == [
            BlockedRequest(url: "http://127.0.0.1:\(origin.port + 1)/x", reason: "network"),
            BlockedRequest(url: "https://127.0.0.1:\(origin.port)", reason: "network"),
            BlockedRequest(url: "http://localhost:\(origin.port)/x", reason: "network"),
        ])
        #expect(try exchange(filter.port, "GET /x HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 400"))
        #expect(try exchange(filter.port, "GET http://x/ HTTP/1.1\r\nX: " + String(repeating: "a", count: 40_000) + "\r\n\r\n").hasPrefix("HTTP/1.1 431"))

        // Reset: nothing is allowed any more, and nothing is reported to the old renderer.
        filter.reset()
        #expect(try exchange(filter.port, "GET http://127.0.0.1:\(origin.port)/again HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 403"))
        #expect(reports.withLock { $0.count } == 3)
        #expect(origin.connectionsAccepted == 1)
    }

    @Test func tunnelsToAnAllowedHTTPSOrigin() throws {
        let origin = try FaultOrigin { _ in .respond(status: 200, body: Array("tunnelled\n".utf8)) }
        defer { origin.stop() }
        let filter = try EgressFilter()
        defer { filter.stop() }
        filter.configure(policy: try RemotePolicy(allowing: ["https://127.0.0.1:\(origin.port)"])) { _ in }
        // Plain HTTP inside the tunnel stands in for TLS: the filter carries bytes, it does not read them.
        let answer = try exchange(
            filter.port, "CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\n\r\nGET /inside HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200"), "\(answer)")
        #expect(answer.hasSuffix("tunnelled\n"))
        #expect(origin.requests.map(\.path) == ["/inside"])
    }

    @Test func stopEndsIdleConnectionsAtOnce() throws {
        let filter = try EgressFilter()
        let client = try connectTo(filter.port)
        defer { close(client) }
        _ = send(client, "GET http://", 11, 0)  // half a head, then nothing
        let started = ContinuousClock.now
        filter.stop()
        #expect(ContinuousClock.now - started < .seconds(2).scaledForTests)
        #expect(try readAll(client, within: .seconds(2)).isEmpty)
    }

    // MARK: A raw client

    private func connectTo(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw Errno.current }
        return fd
    }

    private func readAll(_ fd: Int32, within limit: Duration) throws -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + limit.scaledForTests
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Sends `request` to the filter and reads until it closes the connection.
    private func exchange(_ port: Int, _ request: String) throws -> String {
        let fd = try connectTo(port)
        defer { close(fd) }
        let bytes = Array(request.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { break }  // the filter may refuse and close before reading it all
            offset += count
        }
        return try readAll(fd, within: .seconds(10))
    }
}
