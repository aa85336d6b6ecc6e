import Foundation
import Glibc

extension FaultOrigin.Connection {
    /// Which part of a file to send.
    enum Selection: Equatable {
        case whole
        /// Bytes `first...last`, both within the file.
        case part(first: Int64, last: Int64)
        case unsatisfiable
    }

    /// ``FaultOrigin/Answer/file(root:)``; returns whether the connection may carry another request.
    func serveFile(root: String, for request: Request, closing: Bool) throws(FaultOrigin.Hangup) -> Bool {
        let withBody = request.method != "HEAD"
        guard let path = Self.filePath(root: root, target: request.path) else {
            return try notFound(closing: closing, withBody: withBody)
        }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return try notFound(closing: closing, withBody: withBody) }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return try notFound(closing: closing, withBody: withBody)
        }
        let size = Int64(info.st_size)
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        let tag = "\"\(String(size, radix: 16))-\(String(modified, radix: 16))\""
        var fields = [
            ("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes"), ("ETag", tag),
            ("Last-Modified", Self.httpDate(info.st_mtim.tv_sec)),
        ]
        let selection = Self.select(range: request.headers["range"], ifRange: request.headers["if-range"], size: size, tag: tag)
        let status: Int
        let first: Int64
        let count: Int64
        switch selection {
        case .whole:
            (status, first, count) = (200, 0, size)
        case .part(let start, let last):
            (status, first, count) = (206, start, last - start + 1)
            fields.append(("Content-Range", "bytes \(start)-\(last)/\(size)"))
        case .unsatisfiable:
            fields.append(("Content-Range", "bytes */\(size)"))
            fields.append(("Content-Length", "0"))
            try send(head: Self.head(status: 416, fields: fields, closing: closing))
            return !closing
        }
        fields.append(("Content-Length", String(count)))
        try send(head: Self.head(status: status, fields: fields, closing: closing))
        guard withBody else { return !closing }
        return try sendFile(file, from: first, count: count) && !closing
    }

    /// Sends `count` bytes of `file` from `offset`; false (the connection must close) when the
    /// file turned out shorter or unreadable.
    private func sendFile(_ file: Int32, from offset: Int64, count: Int64) throws(FaultOrigin.Hangup) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var position = offset
        let end = offset + count
        while position < end {
            let wanted = Int(min(Int64(buffer.count), end - position))
            let read = pread(file, &buffer, wanted, off_t(position))
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                printError("file shorter than announced or unreadable (errno \(errno)): closing the connection")
                return false
            }
            try send(body: buffer[0..<read])
            position += Int64(read)
        }
        return true
    }

    private func notFound(closing: Bool, withBody: Bool) throws(FaultOrigin.Hangup) -> Bool {
        let body = Array("not found\n".utf8)
        try send(head: Self.head(status: 404, fields: [("Content-Type", "text/plain"), ("Content-Length", String(body.count))], closing: closing))
        if withBody { try send(body: body) }
        return !closing
    }

    /// `root` followed by the target's path (query and fragment removed, percent-decoded), or
    /// nil when it is not a path or climbs out of `root`.
    static func filePath(root: String, target: String) -> String? {
        let path = target.prefix { $0 != "?" && $0 != "#" }
        guard path.hasPrefix("/"), let decoded = String(path).removingPercentEncoding else { return nil }
        guard !decoded.split(separator: "/").contains(".."), !decoded.contains("\0") else { return nil }
        return (root.hasSuffix("/") ? String(root.dropLast()) : root) + decoded
    }

    /// What a `Range` header (with its `If-Range`) selects of a file of `size` bytes: a single
    /// `bytes=a-b`, `bytes=a-` or `bytes=-n`. Anything else (several ranges, another unit, bad
    /// syntax, an `If-Range` other than `tag`) selects the whole file, as RFC 9110 allows.
    static func select(range: String?, ifRange: String?, size: Int64, tag: String) -> Selection {
        guard let range = range?.trimmingSpaces else { return .whole }
        if let ifRange, ifRange.trimmingSpaces != tag { return .whole }
        guard range.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = range.dropFirst("bytes=".count).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let before = spec[..<dash].trimmingSpaces
        let after = spec[spec.index(after: dash)...].trimmingSpaces
        if before.isEmpty {
            guard let suffix = Int64(after) else { return .whole }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .part(first: max(0, size - suffix), last: size - 1)
        }
        guard let first = Int64(before), first >= 0 else { return .whole }
        var last = size - 1
        if !after.isEmpty {
            guard let given = Int64(after), given >= first else { return .whole }
            last = min(given, size - 1)
        }
        guard first < size else { return .unsatisfiable }
        return .part(first: first, last: last)
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ seconds: time_t) -> String {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
