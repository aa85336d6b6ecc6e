import Foundation
import Glibc
import LarderTestSupport
import LarderSystem
import Testing

/// The fault origin itself, seen from real clients: curl (spawned with a short `--max-time`) and
/// plain sockets. Every wait here is bounded.
@Suite struct FaultOriginTests {
    @Test func respondsAndKeepsConnectionsAlive() throws {
        let origin = try FaultOrigin { request in
            request.path == "/a"
                ? .respond(status: 200, headers: [("X-Kind", "a")], body: Array("alpha".utf8))
                : .respond(status: 200, body: Array("beta".utf8))
        }
        defer { origin.stop() }
        let work = try Workspace()
        try Data(repeating: 7, count: 300_000).write(to: URL(fileURLWithPath: work.path + "/upload"))

        let gets = try Spawned(["curl", "-sS", "--max-time", "5", "-H", "X-Test: Yes", url(origin, "/a"), url(origin, "/b?q=1")]).finish()
        #expect(gets.exitCode == 0)
        #expect(gets.text == "alphabeta")
        // Request bodies are read and dropped, so the next request on the connection still parses.
        let posts = try Spawned(["curl", "-sS", "--max-time", "5", "--data-binary", "@" + work.path + "/upload", url(origin, "/a"), url(origin, "/b")]).finish()
        #expect(posts.exitCode == 0)
        #expect(posts.text == "alphabeta")

        let requests = origin.requests
        try #require(requests.count == 4)
        #expect(requests.map(\.method) == ["GET", "GET", "POST", "POST"])
        #expect(requests.map(\.path) == ["/a", "/b?q=1", "/a", "/b"])
        #expect(requests[0].headers["x-test"] == "Yes")
        #expect(requests[2].headers["content-length"] == "300000")
        #expect(requests[0].connection == requests[1].connection)
        #expect(requests[2].connection == requests[3].connection)
        #expect(origin.connectionsAccepted == 2)
        // The server counts a body once its send returned, which may be just after the client
        // read it: wait for the count (bounded).
        #expect(waitUntil(seconds: 5) { origin.bodyBytesSent >= 18 })
        #expect(origin.bodyBytesSent == 18)
    }

    @Test func servesFilesWithRangesAndIfRange() throws {
        let work = try Workspace()
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        try Data(data).write(to: URL(fileURLWithPath: work.path + "/data.bin"))
        let origin = try FaultOrigin { _ in .file(root: work.path) }
        defer { origin.stop() }
        let file = url(origin, "/data.bin")

        let whole = try Curl.run([file])
        #expect(whole.status == 200)
        #expect(whole.body == data)
        #expect(whole.headers["content-length"] == "1000")
        #expect(whole.headers["accept-ranges"] == "bytes")
        let tag = try #require(whole.headers["etag"])
        #expect(tag.hasPrefix("\"3e8-") && !tag.hasPrefix("W/"))

        let middle = try Curl.run(["-r", "100-199", file])
        #expect(middle.status == 206)
        #expect(middle.body == Array(data[100..<200]))
        #expect(middle.headers["content-range"] == "bytes 100-199/1000")

        let tail = try Curl.run(["-r", "900-", file])
        #expect(tail.status == 206)
        #expect(tail.body == Array(data[900...]))
        #expect(tail.headers["content-range"] == "bytes 900-999/1000")

        let past = try Curl.run(["-r", "2000-", file])
        #expect(past.status == 416)
        #expect(past.headers["content-range"] == "bytes */1000")
        #expect(past.body.isEmpty)

        let sameTag = try Curl.run(["-r", "10-19", "-H", "If-Range: \(tag)", file])
        #expect(sameTag.status == 206)
        #expect(sameTag.body == Array(data[10..<20]))
        let otherTag = try Curl.run(["-r", "10-19", "-H", "If-Range: \"3e8-0\"", file])
        #expect(otherTag.status == 200)
        #expect(otherTag.body == data)

        let client = try RawClient(port: origin.port)
        try client.send("HEAD /data.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let head = String(decoding: client.read(within: .seconds(2)), as: UTF8.self)  // up to the close
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.contains("\r\nContent-Length: 1000\r\n"))
        #expect(head.hasSuffix("\r\nConnection: close\r\n\r\n"))  // and no body
        #expect(try Curl.run([url(origin, "/missing.bin")]).status == 404)
        #expect(try Curl.run([url(origin, "/../etc/passwd"), "--path-as-is"]).status == 404)
        #expect(origin.requests.last?.path == "/../etc/passwd")
    }

    @Test func hangsWhereAsked() throws {
        let origin = try FaultOrigin { request in
            switch request.path {
            case "/never-read": .acceptAndNeverRead
            case "/never-answer": .readAndNeverAnswer
            default: .headersThenStall(status: 200, headers: [("ETag", "\"x\"")], contentLength: 1000)
            }
        }
        defer { origin.stop() }
        let started = try ["/never-read", "/never-answer", "/stall"].map { try Curl.start([url(origin, $0)], maxTime: 1) }
        #expect(waitUntil { origin.openConnections == 3 })
        let (neverRead, neverAnswer, stall) = (started[0].finish(), started[1].finish(), started[2].finish())

        #expect(neverRead.exitCode == 28 && neverRead.status == 0)  // 28: curl's operation timeout
        #expect(neverAnswer.exitCode == 28 && neverAnswer.status == 0)
        #expect(stall.exitCode == 28 && stall.status == 200)
        #expect(stall.headers["content-length"] == "1000" && stall.headers["etag"] == "\"x\"")
        #expect(stall.body.isEmpty)
        #expect(Set(origin.requests.map(\.path)) == ["/never-read", "/never-answer", "/stall"])
        #expect(waitUntil { origin.openConnections == 0 })  // each closes once its client has gone
    }

    @Test func dripsAtRoughlyTheRate() throws {
        let slow = (0..<30).map { UInt8(65 + $0 % 26) }
        let origin = try FaultOrigin { request in
            request.path == "/slow"
                ? .drip(status: 200, headers: [], body: slow, bytesPerSecond: 30)
                : .drip(status: 200, headers: [], body: Array(repeating: 1, count: 100), bytesPerSecond: 2)
        }
        defer { origin.stop() }
        let whole = try Curl.start([url(origin, "/slow")], maxTime: 5)
        let cut = try Curl.start([url(origin, "/trickle")], maxTime: 1)
        let (slowRun, cutRun) = (whole.finish(), cut.finish())

        #expect(slowRun.exitCode == 0 && slowRun.body == slow)
        #expect(slowRun.elapsed > .milliseconds(600) && slowRun.elapsed < .seconds(4))  // about 1 s
        #expect(cutRun.exitCode == 28)
        #expect((1...6).contains(cutRun.body.count))  // about 3 bytes in 1 s
        #expect(cutRun.headers["content-length"] == "100")
    }

    @Test func endlessBodiesKeepSending() throws {
        let origin = try FaultOrigin { request in
            request.path == "/chunked"
                ? .endless(status: 200, headers: [("Transfer-Encoding", "chunked")])
                : .endless(status: 200, headers: [("Content-Type", "application/json")])
        }
        defer { origin.stop() }
        // Long enough for more than 1 MiB from a server that may run several times slower
        // (scaled, see `testTimeScale`: under ThreadSanitizer 1 s gave less).
        let seconds = 1 * testTimeScale
        let plain = try Curl.start(["--limit-rate", "8M", url(origin, "/plain")], maxTime: seconds, keepBody: false)
        let chunked = try Curl.start(["--limit-rate", "8M", url(origin, "/chunked")], maxTime: seconds, keepBody: false)
        let (plainRun, chunkedRun) = (plain.finish(), chunked.finish())

        #expect(plainRun.exitCode == 28 && chunkedRun.exitCode == 28)
        #expect(plainRun.sizeDownload > 1 << 20 && chunkedRun.sizeDownload > 1 << 20)
        #expect(plainRun.headers["content-length"] == nil && plainRun.headers["transfer-encoding"] == nil)
        #expect(chunkedRun.headers["transfer-encoding"] == "chunked")
        #expect(origin.bodyBytesSent >= Int64(plainRun.sizeDownload + chunkedRun.sizeDownload))
        #expect(waitUntil { origin.openConnections == 0 })
    }

    @Test func smallSendBuffersKeepWhatAStalledClientIsSentSmall() throws {
        // With the kernel's default buffers, about 4 MB go out on loopback before sends block.
        let origin = try FaultOrigin(sendBufferSize: 16 * 1024) { _ in .endless(status: 200, headers: []) }
        defer { origin.stop() }
        let client = try RawClient(port: origin.port)
        try client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        // Until the buffers are full: something went out, then nothing more for 100 ms (scaled:
        // under ThreadSanitizer on a busy machine the origin can take that long to send at all).
        let pause = useconds_t(100_000 * testTimeScale)
        var last: Int64 = -1
        #expect(waitUntil(seconds: 10) {
            usleep(pause)
            defer { last = origin.bodyBytesSent }
            return origin.bodyBytesSent > 0 && origin.bodyBytesSent == last
        })
        #expect(origin.bodyBytesSent > 0 && origin.bodyBytesSent < 1 << 20)
    }

    @Test func gzipBombIsSmallQuickAndInflates() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let bomb = FaultOrigin.gzipBomb(inflatedSize: 1 << 30)
        #expect(clock.now - start < .seconds(3))
        #expect(bomb.count > 500_000 && bomb.count < 2_000_000)  // 1 GiB of zeros in about 1 MB
        let small = FaultOrigin.gzipBomb(inflatedSize: (64 << 20) + 12345)
        let empty = FaultOrigin.gzipBomb(inflatedSize: 0)

        let origin = try FaultOrigin { request in
            switch request.path {
            case "/bomb": .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: bomb)
            case "/small": .raw(head: "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(small.count)\r\n", body: small, close: true)
            default: .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: empty)
            }
        }
        defer { origin.stop() }
        let served = try Curl.run([url(origin, "/bomb")])  // no --compressed: the bytes as sent
        #expect(served.headers["content-encoding"] == "gzip")
        #expect(served.headers["content-length"] == String(bomb.count))
        #expect(served.body == bomb)

        let work = try Workspace()
        for name in ["small", "empty"] {
            let fetched = try Curl.run(["-o", work.path + "/\(name).gz", url(origin, "/\(name)")], keepBody: false)
            #expect(fetched.exitCode == 0)
        }
        let script = "set -o pipefail; cd '\(work.path)' && gzip -dc < small.gz | wc -c && gzip -dc < empty.gz | wc -c"
        let sizes = try Spawned(["bash", "-c", script]).finish()  // gzip checks the CRC and the length
        #expect(sizes.exitCode == 0)
        #expect(sizes.text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } == ["67121209", "0"])
    }

    @Test func rawHeadsMayLie() throws {
        let origin = try FaultOrigin { request in
            switch request.path {
            case "/shorter":
                .raw(head: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", body: Array("helloworld".utf8), close: false)
            case "/longer":
                .raw(head: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n", body: Array("helloworld".utf8), close: true)
            default:
                .raw(head: "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-9/1099511627776\r\nContent-Length: 10\r\n", body: Array("helloworld".utf8), close: false)
            }
        }
        defer { origin.stop() }
        let runs = try ["/shorter", "/longer", "/terabyte"].map { try Curl.start([url(origin, $0)], maxTime: 3) }.map { $0.finish() }

        #expect(runs[0].exitCode == 0 && runs[0].body == Array("hello".utf8))
        #expect(runs[1].exitCode == 18 && runs[1].body == Array("helloworld".utf8))  // 18: partial file
        #expect(runs[2].status == 206 && runs[2].headers["content-range"] == "bytes 0-9/1099511627776")
        #expect(waitUntil(seconds: 5) { origin.bodyBytesSent >= 30 })  // counted once each send returned
        #expect(origin.bodyBytesSent == 30)
    }

    @Test func streamsLazily() throws {
        let piece = [UInt8](repeating: 42, count: 64 * 1024)
        let origin = try FaultOrigin { request in
            let left = Countdown(request.path == "/short" ? 1 : 256)  // 256 × 64 KiB = 16 MiB
            let next: @Sendable () -> [UInt8]? = { left.take() ? piece : nil }
            return switch request.path {
            case "/chunked": .stream(status: 200, headers: [], contentLength: nil, next: next)
            case "/sized": .stream(status: 200, headers: [], contentLength: 16 << 20, next: next)
            default: .stream(status: 200, headers: [], contentLength: 1 << 20, next: next)  // announces more than it has
            }
        }
        defer { origin.stop() }
        let runs = try ["/chunked", "/sized", "/short"].map { try Curl.start([url(origin, $0)], maxTime: 5, keepBody: false) }.map { $0.finish() }

        #expect(runs[0].exitCode == 0 && runs[0].sizeDownload == 16 << 20)
        #expect(runs[0].headers["transfer-encoding"] == "chunked")
        #expect(runs[1].exitCode == 0 && runs[1].sizeDownload == 16 << 20)
        #expect(runs[1].headers["content-length"] == String(16 << 20))
        #expect(runs[2].exitCode == 18 && runs[2].sizeDownload == 64 * 1024)
    }

    @Test func redirectsInALoopAndCloses() throws {
        let origin = try FaultOrigin { request in request.path == "/loop" ? .redirect(to: "/loop") : .close }
        defer { origin.stop() }
        let loop = try Curl.run(["-L", "--max-redirs", "5", url(origin, "/loop")])
        #expect(loop.exitCode == 47)  // too many redirects
        #expect(origin.requests.count == 6 && origin.requests.allSatisfy { $0.path == "/loop" })
        #expect(Set(origin.requests.map(\.connection)).count == 1)

        let closed = try Curl.run([url(origin, "/close")])
        #expect(closed.exitCode == 52)  // empty reply from server
    }

    @Test func stopReturnsQuicklyWithStalledClients() throws {
        let origin = try FaultOrigin { request in
            switch request.path {
            case "/never-read": .acceptAndNeverRead
            case "/never-answer": .readAndNeverAnswer
            case "/stall": .headersThenStall(status: 200, headers: [], contentLength: 10)
            case "/drip": .drip(status: 200, headers: [], body: Array(repeating: 0, count: 1000), bytesPerSecond: 1)
            default: .endless(status: 200, headers: [])
            }
        }
        let paths = ["/never-read", "/never-answer", "/stall", "/drip", "/endless"]
        let clients = try paths.map { path in
            let client = try RawClient(port: origin.port)
            try client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return client
        }
        let idle = try RawClient(port: origin.port)  // connected, never sends a request
        #expect(waitUntil { origin.requests.count == 5 && origin.openConnections == 6 })
        #expect(waitUntil { origin.bodyBytesSent > 64 * 1024 })  // the endless body fills the buffers
        usleep(100_000)

        let clock = ContinuousClock()
        let start = clock.now
        origin.stop()
        let took = clock.now - start
        #expect(took < .seconds(2).scaledForTests)
        #expect(origin.openConnections == 0)
        for client in clients + [idle] {
            #expect(client.readUntilEnd(within: .seconds(2)))  // the server closed its side
        }
        // Its listening socket is closed. (Not "a connection to its port is refused": another
        // test's server may take the port the moment it is free.)
        #expect(!FaultOrigin.socketIsOpen(inode: origin.listenerInode))
    }

    @Test func deinitStops() throws {
        var listener: UInt64 = 0
        var client: RawClient?
        do {
            let origin = try FaultOrigin { _ in .readAndNeverAnswer }
            listener = origin.listenerInode
            #expect(FaultOrigin.socketIsOpen(inode: listener))
            client = try RawClient(port: origin.port)
            try client?.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(waitUntil { origin.requests.count == 1 })
        }
        #expect(client?.readUntilEnd(within: .seconds(2)) == true)
        #expect(!FaultOrigin.socketIsOpen(inode: listener))
    }

    @Test func refusesConnectionsBeyondTheCapAndOversizedHeads() throws {
        let origin = try FaultOrigin(maxConnections: 2) { request in
            request.path == "/hold" ? .acceptAndNeverRead : .respond(status: 200, body: [])
        }
        defer { origin.stop() }
        let held = try (0..<2).map { _ in
            let client = try RawClient(port: origin.port)
            try client.send("GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return client
        }
        #expect(waitUntil { origin.requests.count == 2 })
        let third = try RawClient(port: origin.port)
        #expect(third.readUntilEnd(within: .seconds(2)))  // closed without a word
        #expect(origin.connectionsAccepted == 3 && origin.openConnections == 2)
        for client in held { #expect(client.read(within: .milliseconds(100)).isEmpty) }
        held.forEach { $0.close() }
        #expect(waitUntil { origin.openConnections == 0 })

        let big = try RawClient(port: origin.port)
        try big.send("GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 70_000) + "\r\n\r\n")
        #expect(String(decoding: big.read(within: .seconds(2)), as: UTF8.self).hasPrefix("HTTP/1.1 431 "))
        let garbage = try RawClient(port: origin.port)
        try garbage.send("HELLO\r\n\r\n")
        #expect(String(decoding: garbage.read(within: .seconds(2)), as: UTF8.self).hasPrefix("HTTP/1.1 400 "))
    }
}

// MARK: Helpers

private func url(_ origin: FaultOrigin, _ path: String) -> String {
    "http://127.0.0.1:\(origin.port)\(path)"
}

/// Checks `condition` every 10 ms for at most `seconds`.
private func waitUntil(seconds: Double = 3, _ condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int(seconds * 1000)).scaledForTests
    while clock.now < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// A counter a stream's closure takes from.
private final class Countdown: Sendable {
    private let left: Locked<Int>
    init(_ count: Int) { left = Locked(count) }
    func take() -> Bool {
        left.withLock { left in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
    }
}

/// A process started with posix_spawnp (Foundation's Process can stall inside tests), its
/// standard output going to a file.
private final class Spawned {
    struct Outcome {
        var exitCode: Int32
        var output: [UInt8]
        var elapsed: Duration
        var text: String { String(decoding: output, as: UTF8.self) }
    }

    let pid: pid_t
    let capture: String
    let started = ContinuousClock.now

    init(_ arguments: [String]) throws {
        capture = NSTemporaryDirectory() + "fault-origin-\(UUID().uuidString).out"
        let spawn = Spawn(command: arguments, searchesPath: true, standardInput: .null, standardOutput: .truncating(capture))
        do { pid = try spawn.start() } catch { throw IntegrationError(error.description) }
    }

    /// Waits for the process (each one here is bounded by its own `--max-time`).
    func finish() throws -> Outcome {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let elapsed = ContinuousClock.now - started
        defer { unlink(capture) }
        let output = try [UInt8](Data(contentsOf: URL(fileURLWithPath: capture)))
        let exited = status & 0x7f == 0
        return Outcome(exitCode: exited ? (status >> 8) & 0xff : -1, output: output, elapsed: elapsed)
    }
}

/// One curl transfer: status, the last response's headers, the body (unless sent elsewhere) and
/// curl's exit code.
private struct Curl {
    var exitCode: Int32
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var sizeDownload: Int
    var elapsed: Duration

    final class Running {
        let process: Spawned
        let headerFile: String
        let bodyFile: String?
        init(process: Spawned, headerFile: String, bodyFile: String?) {
            self.process = process
            self.headerFile = headerFile
            self.bodyFile = bodyFile
        }

        func finish() -> Curl {
            defer {
                unlink(headerFile)
                if let bodyFile { unlink(bodyFile) }
            }
            do {
                let outcome = try process.finish()
                let written = outcome.text.split(separator: " ")
                // No dump when no response arrived.
                let dump = FileManager.default.fileExists(atPath: headerFile) ? try String(contentsOfFile: headerFile, encoding: .utf8) : ""
                let body = bodyFile.flatMap { FileManager.default.contents(atPath: $0).map { [UInt8]($0) } } ?? []
                return Curl(
                    exitCode: outcome.exitCode, status: written.first.flatMap { Int($0) } ?? -1, headers: Curl.lastHeaders(dump),
                    body: body, sizeDownload: written.dropFirst().first.flatMap { Int($0) } ?? -1, elapsed: outcome.elapsed)
            } catch {
                Issue.record("curl's output could not be read: \(error)")
                return Curl(exitCode: -1, status: -1, headers: [:], body: [], sizeDownload: -1, elapsed: .zero)
            }
        }
    }

    /// Starts curl on `arguments`; `keepBody: false` sends the body to /dev/null (or wherever
    /// `arguments` say with `-o`).
    static func start(_ arguments: [String], maxTime: Double = 5, keepBody: Bool = true) throws -> Running {
        let stem = NSTemporaryDirectory() + "fault-origin-curl-\(UUID().uuidString)"
        let bodyFile = keepBody ? stem + ".body" : nil
        var command = ["curl", "-s", "--max-time", String(maxTime), "-D", stem + ".headers", "-w", "%{http_code} %{size_download}"]
        if let bodyFile { command += ["-o", bodyFile] } else if !arguments.contains("-o") { command += ["-o", "/dev/null"] }
        return Running(process: try Spawned(command + arguments), headerFile: stem + ".headers", bodyFile: bodyFile)
    }

    static func run(_ arguments: [String], keepBody: Bool = true) throws -> Curl {
        try start(arguments, keepBody: keepBody).finish()
    }

    /// The header fields of the last response in a `-D` dump, by lowercased name.
    static func lastHeaders(_ dump: String) -> [String: String] {
        let blocks = dump.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        guard let last = blocks.last else { return [:] }
        var fields: [String: String] = [:]
        for line in last.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }
}

/// A plain TCP client on 127.0.0.1 that reads only when asked.
private final class RawClient {
    struct Refused: Error {}
    private var fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IntegrationError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw Refused()
        }
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw IntegrationError("send: errno \(errno)") }
            offset += sent
        }
    }

    /// What arrives within `duration` (stopping early at the end of the stream).
    func read(within duration: Duration) -> [UInt8] {
        var received: [UInt8] = []
        _ = drain(within: duration) { received.append(contentsOf: $0) }
        return received
    }

    /// Reads and drops everything until the server closes its side; false if it did not within
    /// `duration`.
    func readUntilEnd(within duration: Duration) -> Bool {
        drain(within: duration) { _ in }
    }

    /// Reads until the end of the stream (true) or `duration` (false).
    private func drain(within duration: Duration, _ take: ([UInt8]) -> Void) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + duration.scaledForTests
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while clock.now < deadline {
            let left = deadline - clock.now
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&entry, 1, milliseconds) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return true }  // the end, or a reset
            take(Array(buffer[0..<count]))
        }
        return false
    }
}
