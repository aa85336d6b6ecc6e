import Foundation
import LarderCache
import LarderFormat
import LarderSystem
import LarderTransport

/// Downloads a bundle archive into its claim's partial file, resuming at the first missing
/// byte: whatever arrived before a dropped connection, a timeout or the end of a process is
/// kept, and the next request asks `Range: bytes=<size>-` with `If-Range` (the first
/// response's `ETag`), so a changed file starts over instead of mixing versions.
///
/// Bounded: the archive may not be larger than what its manifest implies
/// (``Manifest/archiveSizeBound(manifestBytes:)``), which refuses a lying `Content-Range` or an
/// endless body before the disk fills; tries that bring nothing new are counted, tries that do
/// are not, and nothing runs past the fetch's deadline.
struct ArchiveDownload {
    let transport: any HTTPTransport
    let url: URL
    let claim: DownloadClaim
    /// The most bytes the archive can have.
    let bound: Int64
    /// What the install writes beside the archive: a download that leaves no room for it is
    /// refused before its body arrives.
    let installSpace: InstallSpace
    let configuration: BundleFetcher.Configuration
    let deadline: FetchDeadline

    /// What was transferred in this call.
    struct Outcome {
        var bytes: Int64 = 0
        var requests = 0
    }

    /// - Parameter progress: called with (bytes in the file, total bytes) as bytes arrive.
    func run(progress: @escaping @Sendable (Int64, Int64) -> Void) async throws(TransportError) -> Outcome {
        var outcome = Outcome()
        var fruitless = 0
        while true {
            let sink = try ArchiveSink(claim: claim, url: url, bound: bound, installSpace: installSpace, progress: progress)
            var request = HTTPRequest(
                url: url, timeout: try deadline.requestTimeout(configuration.requestTimeout, url: url), maximumBodyBytes: bound,
                minimumSpeed: configuration.minimumSpeed)
            request.headers["Range"] = "bytes=\(sink.start)-"
            if sink.start > 0, let validator = sink.validator { request.headers["If-Range"] = validator }
            outcome.requests += 1
            do {
                let response = try await transport.send(request, into: sink)
                outcome.bytes += response.wireBytes
                switch try sink.finish() {
                case .complete: return outcome
                case .incomplete: fruitless = sink.received > 0 ? 0 : fruitless + 1
                }
            } catch where error.isRetryable {
                outcome.bytes += sink.received
                fruitless = sink.received > 0 ? 0 : fruitless + 1
                guard configuration.attempts > fruitless, deadline.remaining > .zero else { throw error }
            }
            guard configuration.attempts > fruitless else {
                throw TransportError(.connection, "the origin stopped sending the archive before its end", url: url)
            }
            if fruitless > 0 { try await deadline.sleep(.milliseconds(100 * fruitless * fruitless)) }
        }
    }
}

/// Receives one response of an archive download into the partial file.
private final class ArchiveSink: ResponseSink, @unchecked Sendable {
    // Confined to the transport's callbacks, then read by the download after the send returned.
    enum State { case complete, incomplete }

    let start: Int64
    let validator: String?
    private(set) var received: Int64 = 0
    private let claim: DownloadClaim
    private let url: URL
    private let bound: Int64
    private let installSpace: InstallSpace
    private let progress: @Sendable (Int64, Int64) -> Void
    private var file: DownloadFile?
    private var offset: Int64
    private var total: Int64?
    private var reported: Int64 = 0

    init(
        claim: DownloadClaim, url: URL, bound: Int64, installSpace: InstallSpace, progress: @escaping @Sendable (Int64, Int64) -> Void
    ) throws(TransportError) {
        self.claim = claim
        self.url = url
        self.bound = bound
        self.installSpace = installSpace
        self.progress = progress
        var size = DownloadFile.size(claim.archivePath)
        var validator: String?
        if size > 0 {
            do { validator = try String(contentsOfFile: claim.archiveValidatorPath, encoding: .utf8) } catch { validator = nil }
            if validator == nil || size >= bound { size = 0 }  // nothing to resume against: start over
        }
        start = size
        offset = size
        self.validator = validator
    }

    func begin(status: Int, headers: [String: String]) throws(TransportError) {
        let file = try DownloadFile(path: claim.archivePath, url: url)
        switch status {
        case 206:
            guard let range = headers["content-range"].flatMap(ContentRange.init(parsing:)), range.bytes?.lowerBound == start else {
                throw TransportError(.malformedDocument, "the answer to 'Range: bytes=\(start)-' has Content-Range '\(headers["content-range"] ?? "")'", url: url)
            }
            total = range.length
        case 200:
            // The server ignored Range, or the file changed (If-Range failed): start over.
            offset = 0
            total = headers["content-length"].flatMap(Int64.init)
        case 416:
            // Asked past the end: complete if the server says the file is exactly this long.
            if start > 0, let range = headers["content-range"].flatMap(ContentRange.init(parsing:)), range.bytes == nil, range.length == start {
                total = start
                self.file = file
                return
            }
            throw TransportError(.unexpectedStatus, "the origin cannot serve the archive from byte \(start)", url: url, status: status)
        default:
            throw TransportError(.unexpectedStatus, "the origin did not serve the archive", url: url, status: status)
        }
        if let total, total > bound {
            throw TransportError(
                .tooLarge, "the origin claims the archive has \(total) bytes; this bundle's archive has at most \(bound)", url: url)
        }
        // The archive stays until its install committed, and the install writes the objects
        // beside it: both must fit, or nothing is downloaded.
        if let total, let free = file.freeBytes(), total - offset + installSpace.total > free {
            throw installSpace.refusal(download: total - offset, free: free, url: url, bundle: claim.bundle)
        }
        try file.truncate(to: offset)
        if offset == 0 { try recordValidator(headers["etag"]) }
        self.file = file
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        guard let file else { return }
        if let total, offset + Int64(bytes.count) > total {
            throw TransportError(.tooLarge, "the origin sent more than the \(total) bytes it announced", url: url)
        }
        try file.write(bytes, at: offset)
        offset += Int64(bytes.count)
        received += Int64(bytes.count)
        if offset - reported >= 64 << 10 {
            reported = offset
            progress(offset, total ?? bound)
        }
    }

    /// After the response ended without error: whether the file now holds the whole archive.
    func finish() throws(TransportError) -> State {
        guard file != nil else { return .incomplete }
        guard let total else { return .complete }  // a 200 without a length ends with its body
        progress(offset, total)
        return offset >= total ? .complete : .incomplete
    }

    /// Keeps the first response's strong ETag for `If-Range`; none (or a weak one) leaves
    /// nothing to resume against, so a later attempt starts over.
    private func recordValidator(_ etag: String?) throws(TransportError) {
        let path = claim.archiveValidatorPath
        if let etag, !etag.hasPrefix("W/"), etag.utf8.count <= 256 {
            try DownloadFile.replace(path, with: Array(etag.utf8), url: url)
        } else if unlink(path) != 0 && errno != ENOENT {
            throw TransportError.write(Errno.current, path: path, url: url)
        }
    }
}
