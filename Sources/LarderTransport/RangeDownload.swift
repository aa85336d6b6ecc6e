import Foundation
import LarderFormat

/// Downloads one URL into a file in pieces with `Range` requests, so a dropped connection costs
/// at most one piece: the next attempt (in this call, or a later one that finds the partial
/// file) asks for the rest. `If-Range` with the first response's ETag makes sure the pieces
/// all come from the same version of the file.
struct RangeDownload {
    let transport: any HTTPTransport
    let url: URL
    let path: String
    var pieceSize: Int64 = 1 << 20
    var attempts = 3
    var timeout: Duration = .seconds(30)

    /// What was transferred in this call.
    struct Outcome {
        var bytes: Int64 = 0
        var requests = 0
    }

    /// - Parameter progress: called with (bytes in the file, total bytes) after each piece.
    func run(progress: (Int64, Int64) -> Void) async throws(TransportError) -> Outcome {
        var outcome = Outcome()
        let etagPath = path + ".etag"
        var offset = fileSize(path)
        var etag = offset > 0 ? (try? String(contentsOfFile: etagPath, encoding: .utf8)) : nil  // lost only means starting over
        if etag == nil && offset > 0 { try truncate(to: 0); offset = 0 }
        var total: Int64?
        while total == nil || offset < total! {
            var request = HTTPRequest(url: url, timeout: timeout)
            request.headers["Range"] = "bytes=\(offset)-\(offset + pieceSize - 1)"
            if let etag { request.headers["If-Range"] = etag }
            let (response, requests) = try await transport.send(request, attempts: attempts)
            outcome.requests += requests
            switch response.status {
            case 206:
                guard let range = response.headers["content-range"], let parsed = Self.parseContentRange(range), parsed.start == offset else {
                    throw TransportError(.malformedDocument, "bad Content-Range '\(response.headers["content-range"] ?? "")'", url: url)
                }
                total = parsed.total
                if etag == nil, let tag = response.headers["etag"] {
                    etag = tag
                    do { try tag.write(toFile: etagPath, atomically: true, encoding: .utf8) } catch {
                        throw TransportError(.cache, "cannot record the download's ETag: \(error)", url: url)
                    }
                }
            case 200:
                // The server ignored Range, or the file changed (If-Range failed): start over.
                try truncate(to: 0)
                offset = 0
                total = Int64(response.body.count)
                etag = response.headers["etag"]
            case 416 where total == nil && offset > 0:
                total = offset  // already complete
                continue
            default:
                throw TransportError(.unexpectedStatus, "unexpected status", url: url, status: response.status)
            }
            try append(response.body)
            offset += Int64(response.body.count)
            outcome.bytes += Int64(response.body.count)
            progress(offset, total ?? offset)
            if response.body.isEmpty && offset < total! {
                throw TransportError(.malformedDocument, "empty piece before the end", url: url)
            }
        }
        return outcome
    }

    static func parseContentRange(_ text: String) -> (start: Int64, end: Int64, total: Int64)? {
        // "bytes 0-1023/4096"
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "/" })
        guard parts.count == 4, parts[0] == "bytes", let start = Int64(parts[1]), let end = Int64(parts[2]),
            let total = Int64(parts[3]), start <= end, end < total
        else { return nil }
        return (start, end, total)
    }

    private func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    private func truncate(to size: Int64) throws(TransportError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TransportError(.cache, "cannot prepare the download file: \(Errno.current)", url: url) }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0 else {
            throw TransportError(.cache, "cannot prepare the download file: \(Errno.current)", url: url)
        }
    }

    private func append(_ data: Data) throws(TransportError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TransportError(.cache, "cannot open the download file: \(Errno.current)", url: url) }
        defer { close(fd) }
        let failure: Errno? = data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                do throws(Errno) {
                    offset += try valueOrErrno { write(fd, raw.baseAddress! + offset, raw.count - offset) }
                } catch {
                    return error
                }
            }
            return nil
        }
        if let failure { throw TransportError(.cache, "cannot write the download file: \(failure)", url: url) }
    }
}
