import Foundation
import LarderSystem
#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP/1.1 server on 127.0.0.1 only: one thread accepts, one thread a connection
/// (at most ``maximumConnections`` at once; more are closed at once), one request a
/// connection (`Connection: close`).
final class LoopbackServer: Sendable {
    /// A request: its method, path (without the query), query and body.
    struct Request: Sendable {
        var method: String
        var path: String
        var query: String
        var body: [UInt8]
    }

    /// What a handler does with a connection: answers it at once, or streams to it.
    enum Reply: Sendable {
        case answer(status: Int, headers: [(String, String)], body: [UInt8])
        /// Server-sent events: `next` is called until it returns nil (the stream ends); each
        /// string is written as it is.
        case events(next: @Sendable () -> String?)
    }

    static let maximumConnections = 64
    static let maximumRequestBytes = 1 << 20

    let port: Int
    private let listener: Int32
    private let open = Locked(0)
    private let handler: @Sendable (Request) -> Reply

    /// Listens on 127.0.0.1:`port` (0: any free port).
    init(port: Int, handler: @escaping @Sendable (Request) -> Reply) throws(PreviewError) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw PreviewError("cannot open a socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw PreviewError("cannot listen on 127.0.0.1:\(port): \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = socket
        self.handler = handler
    }

    /// Accepts connections on a thread of its own, until the process ends.
    func start() {
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else {
                    if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE { usleep(10_000); continue }
                    return
                }
                let admitted = open.withLock { count in
                    guard count < Self.maximumConnections else { return false }
                    count += 1
                    return true
                }
                guard admitted else { close(connection); continue }
                Thread.detachNewThread { [self] in
                    serve(connection)
                    close(connection)
                    open.withLock { $0 -= 1 }
                }
            }
        }
    }

    private func serve(_ connection: Int32) {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let request = readRequest(connection) else {
            _ = write(connection, Self.head(status: 400, headers: [], length: 0))
            return
        }
        switch handler(request) {
        case .answer(let status, let headers, let body):
            guard write(connection, Self.head(status: status, headers: headers, length: body.count)) else { return }
            if request.method != "HEAD" { _ = write(connection, body) }
        case .events(let next):
            let headers = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")]
            guard write(connection, Self.head(status: 200, headers: headers, length: nil)) else { return }
            while let chunk = next() {
                guard write(connection, Array(chunk.utf8)) else { return }
            }
        }
    }

    /// Reads one request: its line, headers, and a body of `Content-Length` bytes.
    private func readRequest(_ connection: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var headerEnd: Int?
        var bodyLength = 0
        while bytes.count <= Self.maximumRequestBytes {
            if let end = headerEnd, bytes.count >= end + bodyLength { break }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            bytes += buffer[0..<count]
            if headerEnd == nil, let range = bytes.firstRange(of: Array("\r\n\r\n".utf8)) {
                headerEnd = range.upperBound
                let head = String(decoding: bytes[..<range.lowerBound], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        bodyLength = min(Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0, Self.maximumRequestBytes)
                    }
                }
            }
        }
        guard let end = headerEnd else { return nil }
        let firstLine = bytes[..<end].prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let line = String(decoding: firstLine, as: UTF8.self).split(separator: " ")
        guard line.count == 3 else { return nil }
        let target = String(line[1])
        let path = String(target.prefix { $0 != "?" })
        let query = target.contains("?") ? String(target.drop { $0 != "?" }.dropFirst()) : ""
        return Request(method: String(line[0]), path: path, query: query, body: Array(bytes[end..<min(bytes.count, end + bodyLength)]))
    }

    private static func head(status: Int, headers: [(String, String)], length: Int?) -> [UInt8] {
        let reason = [200: "OK", 204: "No Content", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 503: "Service Unavailable"][status] ?? "Status"
        var text = "HTTP/1.1 \(status) \(reason)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let length { text += "Content-Length: \(length)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// Writes every byte; false when the peer went away.
    private func write(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}

/// A preview that cannot start or serve.
struct PreviewError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
