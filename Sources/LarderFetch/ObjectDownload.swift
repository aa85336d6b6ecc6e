import Foundation
import LarderCache
import LarderFormat
import LarderSystem
import LarderTransport

/// Downloads one object into its claim's objects folder: gzip-encoded when the origin has a
/// compressed copy (decoded as it arrives, never past the object's size), hashed as it is
/// written to `<hex>.part`, and renamed to `<hex>` only once its size and digest match, so a
/// later attempt skips the objects already there.
struct ObjectDownload {
    let transport: any HTTPTransport
    let origin: URL
    let claim: DownloadClaim
    let configuration: BundleFetcher.Configuration
    let deadline: FetchDeadline

    /// What one object cost.
    struct Outcome: Sendable {
        var object: Digest
        var path: String
        var wireBytes: Int64
        var requests: Int
    }

    /// Where the object goes once verified.
    func path(of object: Digest) -> String { claim.objectsFolder + "/" + object.hex }

    /// Fetches `object` of `size` bytes, unless an earlier attempt already did.
    func run(_ object: Digest, size: Int64) async throws(TransportError) -> Outcome {
        let final = path(of: object)
        if DownloadFile.size(final) == size && FileManager.default.fileExists(atPath: final) {
            return Outcome(object: object, path: final, wireBytes: 0, requests: 0)
        }
        let url = origin.appendingPathComponent("objects/\(object.hex)")
        let partial = final + ".part"
        let sink = ObjectSink(path: partial, url: url)
        let request = HTTPRequest(
            url: url, timeout: configuration.requestTimeout, maximumBodyBytes: size, acceptsCompression: true,
            minimumSpeed: configuration.minimumSpeed)
        let (response, requests) = try await transport.send(request, into: sink, attempts: configuration.attempts, deadline: deadline)
        let (received, digest) = sink.result()
        guard received == size, digest == object else {
            unlink(partial)
            let what = received == size ? "bytes that hash to \(digest)" : "\(received) bytes; the manifest says \(size)"
            throw TransportError(.digestMismatch, "the origin sent \(what)", url: url, digest: object)
        }
        guard rename(partial, final) == 0 else { throw TransportError.write(Errno.current, path: final, url: url) }
        return Outcome(object: object, path: final, wireBytes: response.wireBytes, requests: requests)
    }
}

/// Writes one object's body to its partial file while hashing it.
private final class ObjectSink: ResponseSink, @unchecked Sendable {
    // Confined to the transport's callbacks, then read after the send returned.
    private let path: String
    private let url: URL
    private var file: DownloadFile?
    private let hasher = SHA256Hasher()
    private var received: Int64 = 0

    init(path: String, url: URL) {
        self.path = path
        self.url = url
    }

    func begin(status: Int, headers: [String: String]) throws(TransportError) {
        guard status == 200 else { throw TransportError(.unexpectedStatus, "the origin did not serve the object", url: url, status: status) }
        // Each try starts the file over.
        let file = try DownloadFile(path: path, url: url)
        try file.truncate(to: 0)
        self.file = file
        hasher.reset()
        received = 0
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        try file?.write(bytes, at: received)
        hasher.update(bytes)
        received += Int64(bytes.count)
    }

    /// The bytes received and their digest.
    func result() -> (Int64, Digest) {
        file = nil
        return (received, hasher.finalize())
    }
}
