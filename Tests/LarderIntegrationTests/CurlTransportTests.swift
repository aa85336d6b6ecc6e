import Foundation
import LarderTestSupport
import LarderTransport
import Synchronization
import Testing

/// Each limit of ``CurlTransport`` against a real misbehaving server on 127.0.0.1: every kind of
/// bad answer comes back as its own typed error. The server never ends these answers itself, so
/// the error's code says which limit acted. (Times measured in a test task would time the test
/// process's busy thread pool as much as the transport: HangStressTests watches for hangs, and
/// HostileOriginTests times the CLI as a process of its own.)
@Suite struct CurlTransportTests {
    let transport = CurlTransport.shared

    /// Sends one request to an origin that answers it with `answer`; returns the error.
    func failure(
        _ answer: @escaping @Sendable (FaultOrigin.Request) -> FaultOrigin.Answer, configure: (inout HTTPRequest) -> Void = { _ in }
    ) async throws -> TransportError {
        let origin = try FaultOrigin(answer)
        defer { origin.stop() }  // quick: every connection here is already closed by the client
        var request = HTTPRequest(url: origin.base.appendingPathComponent("thing"), timeout: .seconds(5))
        configure(&request)
        do {
            let response = try await transport.send(request)
            throw IntegrationError("expected a failure, got HTTP \(response.status) with \(response.body.count) bytes")
        } catch let error as TransportError {
            return error
        }
    }

    @Test func aBodyAndHeadersComeBackWhole() async throws {
        let body = Array((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let origin = try FaultOrigin { _ in .respond(status: 201, headers: [("X-Thing", "yes"), ("ETag", "\"v1\"")], body: body) }
        defer { origin.stop() }
        var request = HTTPRequest(url: origin.base.appendingPathComponent("a"), headers: ["X-Larder-Key": "pk"], maximumBodyBytes: 300_000)
        request.method = "POST"
        request.body = Data("hello".utf8)
        let response = try await transport.send(request)
        #expect(response.status == 201)
        #expect(Array(response.body) == body)
        #expect(response.headers["x-thing"] == "yes")
        #expect(response.headers["etag"] == "\"v1\"")
        #expect(response.wireBytes == 300_000)
        let seen = try #require(origin.requests.first)
        #expect(seen.method == "POST")
        #expect(seen.headers["x-larder-key"] == "pk")
        #expect(seen.headers["accept-encoding"] == nil)
    }

    @Test func aDeclaredLengthOverTheBoundIsRefusedBeforeTheBody() async throws {
        let error = try await failure({ _ in .respond(status: 200, body: Array(repeating: 1, count: 5000)) }) { $0.maximumBodyBytes = 4096 }
        #expect(error.code == .tooLarge)
    }

    @Test func anUndeclaredBodyStopsAtTheBound() async throws {
        let error = try await failure({ _ in .endless(status: 200, headers: []) }) { $0.maximumBodyBytes = 1 << 20 }
        #expect(error.code == .tooLarge)
    }

    @Test func anEncodingNobodyAskedForIsRefused() async throws {
        let error = try await failure { _ in
            .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: FaultOrigin.gzipBomb(inflatedSize: 1 << 20))
        }
        #expect(error.code == .unexpectedEncoding)
    }

    @Test func anAskedForEncodingIsDecodedButNeverPastTheBound() async throws {
        let error = try await failure({ _ in
            .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: FaultOrigin.gzipBomb(inflatedSize: 1 << 30))
        }) { request in
            request.acceptsCompression = true
            request.maximumBodyBytes = 1 << 20
        }
        #expect(error.code == .tooLarge)
    }

    @Test func aGzipBodyIsDecoded() async throws {
        let origin = try FaultOrigin { _ in
            .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: FaultOrigin.gzipBomb(inflatedSize: 100_000))
        }
        defer { origin.stop() }
        let response = try await transport.send(
            HTTPRequest(url: origin.base.appendingPathComponent("z"), maximumBodyBytes: 100_000, acceptsCompression: true))
        #expect(response.body.count == 100_000)
        #expect(response.body.allSatisfy { $0 == 0 })
        #expect(response.wireBytes < 10_000)
        #expect(origin.requests.first?.headers["accept-encoding"]?.contains("gzip") == true)
    }

    @Test func headerFieldsPast64KiBAreRefused() async throws {
        let head = "HTTP/1.1 200 OK\r\n" + (0..<200).map { "X-Padding-\($0): \(String(repeating: "a", count: 400))\r\n" }.joined()
            + "Content-Length: 2\r\n"
        let error = try await failure { _ in .raw(head: head, body: Array("ok".utf8), close: true) }
        #expect(error.code == .tooLarge)
    }

    /// A redirect out of the request's origin (another port of the same host here, written
    /// absolute or scheme-relative) is refused on its `Location`: the other server receives
    /// nothing, neither the headers nor the body. URLSession's transport keeps the same rule.
    @Test(arguments: [false, true], ["absolute", "scheme-relative", "user information"])
    func aRedirectToAnotherOriginIsRefusedAndNothingReachesIt(_ urlSession: Bool, _ form: String) async throws {
        let elsewhere = try FaultOrigin { _ in .respond(status: 200, body: Array("taken".utf8)) }
        defer { elsewhere.stop() }
        let location = switch form {
        case "absolute": "http://127.0.0.1:\(elsewhere.port)/collect"
        case "scheme-relative": "//127.0.0.1:\(elsewhere.port)/collect"
        default: "http://127.0.0.1@127.0.0.1:\(elsewhere.port)/collect"
        }
        let origin = try FaultOrigin { _ in .respond(status: 307, headers: [("Location", location)], body: []) }
        defer { origin.stop() }
        let transport: any HTTPTransport = urlSession ? URLSessionTransport() : CurlTransport.shared
        let request = HTTPRequest(
            url: origin.base.appendingPathComponent("capture"), headers: ["X-Larder-Key": "pk_live_secret"], timeout: .seconds(10),
            method: "POST", body: Data("answers".utf8))
        do {
            let response = try await transport.send(request)
            Issue.record("expected a refusal, got HTTP \(response.status)")
        } catch {
            #expect(error.code == .redirectRefused, "\(error)")
        }
        #expect(origin.requests.map(\.method) == ["POST"])
        #expect(elsewhere.connectionsAccepted == 0, "\(elsewhere.requests.map(\.headers))")
    }

    @Test func aRedirectWithinTheOriginKeepsTheRequest() async throws {
        let origin = try FaultOrigin { request in
            request.path == "/old" ? .respond(status: 308, headers: [("Location", "/new")], body: []) : .respond(status: 201, body: [])
        }
        defer { origin.stop() }
        let request = HTTPRequest(
            url: origin.base.appendingPathComponent("old"), headers: ["X-Larder-Key": "pk"], method: "POST", body: Data("answers".utf8))
        #expect(try await transport.send(request).status == 201)
        #expect(origin.requests.map { "\($0.method) \($0.path) \($0.headers["x-larder-key"] ?? "-")" } == ["POST /old pk", "POST /new pk"])
    }

    @Test func aRedirectLoopEnds() async throws {
        let error = try await failure { request in .redirect(to: request.path) }
        #expect(error.code == .redirectLoop)
    }

    @Test func aRedirectToAnotherProtocolIsRefused() async throws {
        let error = try await failure { _ in .redirect(to: "file:///etc/passwd") }
        #expect(error.code == .redirectRefused)
    }

    @Test func silenceEndsAtTheTimeLimit() async throws {
        let error = try await failure({ _ in .readAndNeverAnswer }) { $0.timeout = .milliseconds(500) }
        #expect(error.code == .timeout)
    }

    @Test func aDripSlowerThanTheMinimumSpeedEnds() async throws {
        let error = try await failure({ _ in
            .drip(status: 200, headers: [], body: Array(repeating: 1, count: 10_000), bytesPerSecond: 20)
        }) { request in
            request.timeout = .seconds(30)
            request.minimumSpeed = .init(bytesPerSecond: 1000, window: .seconds(1))
            request.maximumBodyBytes = 10_000
        }
        #expect(error.code == .tooSlow)
    }

    @Test func aRefusedConnectionIsAConnectionError() async throws {
        let port: Int
        do {
            let origin = try FaultOrigin { _ in .close }
            port = origin.port
            origin.stop()
        }
        do {
            _ = try await transport.send(HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/x")!, timeout: .seconds(5)))
            Issue.record("a stopped server answered")
        } catch {
            #expect(error.code == .connection)
            #expect(error.isRetryable)
        }
    }

    @Test func cancellingTheCallerEndsTheRequestAtOnce() async throws {
        let origin = try FaultOrigin { _ in .headersThenStall(status: 200, headers: [], contentLength: 1000) }
        defer { origin.stop() }
        let request = HTTPRequest(url: origin.base.appendingPathComponent("stall"), timeout: .seconds(60))
        let task = Task { try await transport.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a stalled request finished")
        } catch let error as TransportError {
            #expect(error.code == .cancelled)
        }
    }

    @Test func aSinkThatRefusesStopsTheTransfer() async throws {
        let origin = try FaultOrigin { _ in .endless(status: 200, headers: []) }
        defer { origin.stop() }
        final class Refusing: ResponseSink, @unchecked Sendable {
            var received = 0
            func begin(status: Int, headers: [String: String]) throws(TransportError) {}
            func receive(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
                received += bytes.count
                if received > 100_000 { throw TransportError(.diskFull, "full") }
            }
        }
        let sink = Refusing()
        do {
            _ = try await transport.send(
                HTTPRequest(url: origin.base.appendingPathComponent("e"), maximumBodyBytes: 1 << 30), into: sink)
            Issue.record("an endless body finished")
        } catch {
            #expect(error.code == .diskFull)
        }
        #expect(sink.received < 1 << 20)
    }

    @Test func connectionsAreReused() async throws {
        let origin = try FaultOrigin { _ in .respond(status: 200, body: Array("ok".utf8)) }
        defer { origin.stop() }
        for index in 0..<5 {
            _ = try await transport.send(HTTPRequest(url: origin.base.appendingPathComponent("r\(index)")))
        }
        #expect(origin.connectionsAccepted < 5, "five requests, one after another, should share connections")
    }
}

/// Which redirects are followed: within the request's origin only (issue 35 item 7).
@Suite struct RedirectRuleTests {
    static let request = URL(string: "https://cdn.example.com/capture")!

    @Test(arguments: [
        ("https", "cdn.example.com", nil, true), ("HTTPS", "CDN.Example.COM", 443, true), ("https", "cdn.example.com", 8443, false),
        ("http", "cdn.example.com", nil, false), ("https", "collect.example.com", nil, false), ("https", "cdn.example.com.evil.test", nil, false),
    ] as [(String, String, Int?, Bool)])
    func followsOnlyWithinTheOrigin(_ scheme: String, _ host: String, _ port: Int?, _ followed: Bool) throws {
        let origin = try #require(HTTPOrigin(Self.request))
        let target = HTTPOrigin(scheme: scheme, host: host, port: port)
        let refusal = RedirectRule.refusal(to: target, from: origin, location: "x", url: Self.request)
        #expect((refusal == nil) == followed, "\(String(describing: refusal))")
        #expect(refusal.map { $0.code == .redirectRefused } ?? true)
    }

    @Test func aDowngradeAndANonHTTPTargetSaySo() throws {
        let origin = try #require(HTTPOrigin(Self.request))
        let downgrade = RedirectRule.refusal(to: HTTPOrigin(scheme: "http", host: "cdn.example.com", port: nil), from: origin, location: "http://cdn.example.com/", url: Self.request)
        #expect(downgrade?.message.contains("from https to http") == true)
        let file = RedirectRule.refusal(to: nil, from: origin, location: "file:///etc/passwd", url: Self.request)
        #expect(file?.message.contains("not an http(s) URL") == true)
        #expect(HTTPOrigin(scheme: "ftp", host: "x", port: nil) == nil && HTTPOrigin(scheme: "http", host: "x", port: 0) == nil)
        #expect(HTTPOrigin(URL(string: "http://[::1]:8080/x")!)?.description == "http://[::1]:8080")
    }
}
