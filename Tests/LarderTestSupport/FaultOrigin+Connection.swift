import Glibc

extension FaultOrigin {
    /// Why a connection's work ended early: the client went away, or the server is stopping.
    enum Hangup: Error { case peerGone, stopping }

    /// One accepted connection, served on its own thread: request heads are peeked at, routed,
    /// consumed, and answered, until the client closes, an answer closes, or the server stops.
    /// The socket is non-blocking and every wait is a `poll` of at most one tick.
    struct Connection {
        let core: Core
        let id: Int
        let fd: Int32

        /// The most a request head may take, its blank line included.
        static let headLimit = 64 * 1024
        /// `POLLRDHUP` (the peer closed or shut down its sending side), a Linux flag the Swift
        /// Glibc module does not export.
        static let peerClosed = Int16(0x2000)
        static let hangupEvents = peerClosed | Int16(POLLHUP) | Int16(POLLERR)

        func run() {
            do {
                while try serveOneRequest() {}
            } catch {
                // The client went away or the server is stopping: the connection is over.
            }
        }

        /// Reads, routes and answers one request; returns whether the connection stays open.
        private func serveOneRequest() throws(Hangup) -> Bool {
            let head: Head
            switch try peekHead() {
            case .closed:
                return false
            case .tooLarge:
                try consume(Self.headLimit)
                try send(head: "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                closeGracefully()
                return false
            case .malformed(let length):
                try consume(length)
                try send(head: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                closeGracefully()
                return false
            case .complete(let complete):
                head = complete
            }
            let request = head.request
            core.record(request)
            let answer = core.route(request)
            switch answer {
            case .acceptAndNeverRead:
                holdWithoutReading()
                return false
            case .close:
                try consume(head.length)
                return false
            case .readAndNeverAnswer:
                try consume(head.length)
                drainUntilClosed()
                return false
            default:
                try consume(head.length)
                guard try discardBody(of: request) else {
                    try send(head: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    closeGracefully()
                    return false
                }
                let keepOpen = try perform(answer, for: request)
                if !keepOpen { closeGracefully() }
                return keepOpen
            }
        }

        // MARK: Request heads

        struct Head {
            var request: Request
            /// Bytes of the head on the socket, its blank line included.
            var length: Int
        }

        enum PeekedHead {
            case complete(Head)
            /// The client closed the connection (or shut down its side) before a whole head.
            case closed
            case tooLarge
            /// Not an HTTP request; `length` bytes to consume before answering 400.
            case malformed(length: Int)
        }

        /// Waits for a whole request head and parses it without consuming it (`MSG_PEEK`), so an
        /// answer may still leave every byte unread.
        private func peekHead() throws(Hangup) -> PeekedHead {
            var buffer = [UInt8](repeating: 0, count: Self.headLimit)
            var previous = -1
            while true {
                if core.stopping { throw .stopping }
                let count = recv(fd, &buffer, buffer.count, Int32(MSG_PEEK))
                if count == 0 { return .closed }
                if count < 0 {
                    guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { throw .peerGone }
                    _ = wait(for: Int16(POLLIN) | Self.peerClosed, milliseconds: Core.tick)
                    continue
                }
                if let end = Self.endOfHead(in: buffer[0..<count]) {
                    guard let request = Self.parse(buffer[0..<end], connection: id) else { return .malformed(length: end + 4) }
                    return .complete(Head(request: request, length: end + 4))
                }
                if count >= Self.headLimit { return .tooLarge }
                if count == previous {
                    // Part of a head is waiting: the socket stays readable, so sleep instead of
                    // polling for input, and give up when the client stops sending.
                    if wait(for: Self.peerClosed, milliseconds: 10) & Self.hangupEvents != 0 { return .closed }
                }
                previous = count
            }
        }

        /// The offset of the CRLF CRLF that ends a head.
        static func endOfHead(in bytes: ArraySlice<UInt8>) -> Int? {
            guard bytes.count >= 4 else { return nil }
            var index = bytes.startIndex
            while index + 3 < bytes.endIndex {
                if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                    return index - bytes.startIndex
                }
                index += 1
            }
            return nil
        }

        /// The request line and header fields, or nil when they are not HTTP/1.x.
        static func parse(_ bytes: ArraySlice<UInt8>, connection: Int) -> Request? {
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
            guard let first = lines.first else { return nil }
            let parts = first.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { return nil }
                let name = line[..<colon].lowercased()
                guard !name.isEmpty, !name.contains(" ") else { return nil }
                let value = line[line.index(after: colon)...].trimmingSpaces
                headers[name] = headers[name].map { $0 + ", " + value } ?? value
            }
            return Request(method: String(parts[0]), path: String(parts[1]), headers: headers, version: String(parts[2]), connection: connection)
        }

        // MARK: Request bodies

        /// Reads the request body and drops it; false when its framing cannot be understood.
        private func discardBody(of request: Request) throws(Hangup) -> Bool {
            let encoding = request.headers["transfer-encoding"]?.lowercased()
            let length = request.headers["content-length"]
            guard encoding != nil || length != nil else { return true }
            if request.headers["expect"]?.lowercased() == "100-continue" {
                try send(head: "HTTP/1.1 100 Continue\r\n\r\n")
            }
            if let encoding, encoding != "identity" {
                guard encoding.hasSuffix("chunked") else { return false }
                return try discardChunks()
            }
            guard let length, let count = Int64(length.trimmingSpaces), count >= 0 else { return false }
            try discard(count)
            return true
        }

        private func discardChunks() throws(Hangup) -> Bool {
            while true {
                let line = try readLine()
                let digits = line.prefix { $0 != ";" }.trimmingSpaces
                guard let size = Int64(digits, radix: 16), size >= 0 else { return false }
                if size == 0 {
                    while try !readLine().isEmpty {}  // trailer fields, then the blank line
                    return true
                }
                try discard(size)
                guard try readLine().isEmpty else { return false }
            }
        }

        /// One CRLF-terminated line, read a byte at a time (chunk sizes are short).
        private func readLine() throws(Hangup) -> String {
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while line.count < 4096 {
                try receive(into: &byte, count: 1)
                if byte == 10 {
                    if line.last == 13 { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                line.append(byte)
            }
            throw .peerGone  // not a chunked body
        }

        private func discard(_ count: Int64) throws(Hangup) {
            let capacity = 64 * 1024
            let scratch = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
            defer { scratch.deallocate() }
            var left = count
            while left > 0 {
                let piece = Int(min(left, Int64(capacity)))
                try receive(into: scratch, count: piece)
                left -= Int64(piece)
            }
        }

        /// Consumes exactly `count` bytes (a head already peeked at).
        private func consume(_ count: Int) throws(Hangup) {
            try discard(Int64(count))
        }

        /// Reads exactly `count` bytes into `pointer`.
        private func receive(into pointer: UnsafeMutableRawPointer, count: Int) throws(Hangup) {
            var offset = 0
            while offset < count {
                if core.stopping { throw .stopping }
                let received = recv(fd, pointer + offset, count - offset, 0)
                if received > 0 {
                    offset += received
                } else if received < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                    _ = wait(for: Int16(POLLIN) | Self.peerClosed, milliseconds: Core.tick)
                } else {
                    throw .peerGone
                }
            }
        }

        // MARK: Sending

        /// Sends every byte, waiting (a tick at a time) while the client does not read.
        /// - Parameter body: whether the bytes count in ``FaultOrigin/bodyBytesSent``.
        func send(_ bytes: UnsafeRawBufferPointer, body: Bool) throws(Hangup) {
            guard var pointer = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                if core.stopping { throw .stopping }
                let sent = Glibc.send(fd, pointer, left, Int32(MSG_NOSIGNAL))
                if sent > 0 {
                    pointer += sent
                    left -= sent
                    if body { core.countBody(sent) }
                } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                    _ = wait(for: Int16(POLLOUT), milliseconds: Core.tick)
                } else {
                    throw .peerGone
                }
            }
        }

        func send(body bytes: [UInt8]) throws(Hangup) {
            try send(body: bytes[...])
        }

        func send(body bytes: ArraySlice<UInt8>) throws(Hangup) {
            let outcome = bytes.withUnsafeBytes { buffer in Result { () throws(Hangup) in try send(buffer, body: true) } }
            try outcome.get()
        }

        func send(head text: String) throws(Hangup) {
            let bytes = Array(text.utf8)
            let outcome = bytes.withUnsafeBytes { buffer in Result { () throws(Hangup) in try send(buffer, body: false) } }
            try outcome.get()
        }

        // MARK: Waiting and closing

        /// Waits up to `milliseconds` for `events` (hang-ups are always reported); returns the
        /// events seen, 0 when none.
        func wait(for events: Int16, milliseconds: Int32) -> Int16 {
            var entry = pollfd(fd: fd, events: events, revents: 0)
            return poll(&entry, 1, milliseconds) > 0 ? entry.revents : 0
        }

        /// Sleeps up to `milliseconds`; throws when the client has closed or the server stops.
        func pause(milliseconds: Int32) throws(Hangup) {
            if wait(for: Self.peerClosed, milliseconds: max(1, milliseconds)) & Self.hangupEvents != 0 { throw .peerGone }
            if core.stopping { throw .stopping }
        }

        /// Keeps the connection open without reading until the client closes it or the server
        /// stops.
        private func holdWithoutReading() {
            while !core.stopping {
                if wait(for: Self.peerClosed, milliseconds: Core.tick) & Self.hangupEvents != 0 { return }
            }
        }

        /// Reads and drops whatever arrives until the client closes or the server stops.
        func drainUntilClosed(for budget: Duration? = nil) {
            var scratch = [UInt8](repeating: 0, count: 16 * 1024)
            let clock = ContinuousClock()
            let deadline = budget.map { clock.now + $0 }
            while !core.stopping {
                if let deadline, clock.now >= deadline { return }
                guard wait(for: Int16(POLLIN) | Self.peerClosed, milliseconds: Core.tick) != 0 else { continue }
                let received = recv(fd, &scratch, scratch.count, 0)
                if received == 0 { return }
                if received < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { return }
            }
        }

        /// Ends the response with a FIN and reads what the client still sends for a short while,
        /// so closing with unread input does not turn into a reset that could destroy the answer
        /// before the client reads it.
        func closeGracefully() {
            shutdown(fd, Int32(SHUT_WR))
            drainUntilClosed(for: .milliseconds(500))
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
