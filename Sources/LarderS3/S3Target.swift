#if canImport(CCurl)
import Foundation
import LarderFormat
import LarderPublish

/// An origin in an S3 bucket (AWS S3, or any service that speaks its API: MinIO, R2, Ceph RGW,
/// GCS's XML API, moto): `larder publish --origin s3://<bucket>/<prefix>`.
///
/// Immutable files are put with `If-None-Match: *`: a 412 means the key exists, which is
/// success for a content-addressed path once a HEAD shows the same size. Mutable files are read
/// with their ETag and replaced with `If-Match: <etag>` (or `If-None-Match: *` when there was
/// none), so a publisher that lost a race learns it from a 412 and reads again. Each file is
/// sent from disk through libcurl's read callback, signed by libcurl (AWS Signature V4) with
/// the body's SHA-256 as `x-amz-content-sha256`, and carries the `Content-Type` and
/// `Cache-Control` the nginx origin would serve it with. Files above
/// ``S3Configuration/multipartThreshold`` go up in parts (S3Target+Multipart.swift).
///
/// What the service keeps is checked where it says: a PUT's ETag that states an MD5 (one
/// request, no SSE-KMS or SSE-C) must be the MD5 of the body sent, else the file is sent again
/// (`storeAttempts` in all); an immutable file found of another size is sent again over it.
/// Every error leaving this type has the secrets taken out (`S3Configuration.redact(_:)`),
/// whatever the service echoed.
public struct S3Target: PublishTarget {
    let client: S3Client

    public init(configuration: S3Configuration) { client = S3Client(configuration: configuration) }

    public var configuration: S3Configuration { client.configuration }
    public var name: String { configuration.name }

    /// Checks that the endpoint is an S3 service, the bucket exists and the credentials may
    /// list it (`ListObjectsV2` of one key), so a wrong setup fails before anything is sent.
    /// - Throws: `PublishError` with `PublishError.Code.noSuchBucket`,
    ///   `PublishError.Code.credentials` or `PublishError.Code.notObjectStore`.
    public func checkBucket() throws(PublishError) {
        try redacting { () throws(PublishError) in
            let answer = try client.send("GET", "?list-type=2&max-keys=1")
            if answer.status == 200, client.isS3(answer) || answer.body.starts(with: Array("<?xml".utf8)) { return }
            throw client.refusal(answer, "GET", "") ?? client.unexpected(answer, "GET", "")
        }
    }

    /// How many times a file is sent when the service's ETag says it kept other bytes.
    static let storeAttempts = 3

    public func size(of path: String) throws(PublishError) -> Int64? {
        try redacting { () throws(PublishError) -> Int64? in try head(path) }
    }

    func head(_ path: String) throws(PublishError) -> Int64? {
        let answer = try client.send("HEAD", path)
        switch answer.status {
        case 200:
            guard let length = answer.headers["content-length"].flatMap({ Int64($0) }) else {
                throw PublishError(.unexpected, "HEAD answered without a Content-Length", path: name + "/" + path)
            }
            return length
        case 404 where client.isS3(answer): return nil
        default: throw client.unexpected(answer, "HEAD", path)
        }
    }

    public func putIfAbsent(_ path: String, from source: String, sha256: Digest?, content: OriginContent) throws(PublishError) -> Bool {
        try redacting { () throws(PublishError) -> Bool in
            let size = try Self.size(ofLocal: source)
            if size > configuration.multipartThreshold { return try putInParts(path, from: source, size: size, content: content) }
            let hash: String
            if let sha256 { hash = sha256.hex } else { hash = try Self.hash(of: source) }
            var headers = Self.headers(for: content, acl: configuration.acl)
            headers.append("If-None-Match: *")
            let answer = try client.send("PUT", path, headers: headers, body: .file(path: source, size: size), payloadHash: hash)
            switch answer.status {
            case 200:
                if keptWhatWasSent(answer) { return true }
            case 412, 409:
                // There already (409: another upload of it is in progress). Content-addressed,
                // so the same bytes, but not trusted blindly: the size must match, and a file
                // of another size is sent again over it.
                guard let existing = try head(path) ?? (answer.status == 409 ? size : nil) else {
                    throw PublishError(.unexpected, "PUT answered \(answer.status) but the key is not there", path: name + "/" + path)
                }
                guard existing != size else { return false }
            default: throw client.unexpected(answer, "PUT", path)
            }
            try overwrite(path, from: source, size: size, hash: hash, content: content, after: answer)
            return true
        }
    }

    /// Whether the service kept what a PUT sent, as far as it can tell: the whole body went
    /// out before the answer (a 200 before that stored nothing), and the ETag states no MD5
    /// (``S3ETag``) or the MD5 of the body sent.
    func keptWhatWasSent(_ answer: S3Answer) -> Bool {
        guard let sent = answer.sentMD5 else { return false }
        guard let stated = S3ETag.statedMD5(answer) else { return true }
        return stated == sent
    }

    /// Sends an immutable file again whatever is there (it was of another size, or the last
    /// PUT's ETag was not the body's MD5), until the ETag says the service kept it, at most
    /// ``storeAttempts`` PUTs in all.
    /// - Throws: ``PublishError/Code/integrity`` when every ETag says otherwise.
    private func overwrite(_ path: String, from source: String, size: Int64, hash: String, content: OriginContent, after first: S3Answer) throws(PublishError) {
        var last = first
        for _ in 2...Self.storeAttempts {
            last = try client.send("PUT", path, headers: Self.headers(for: content, acl: configuration.acl), body: .file(path: source, size: size), payloadHash: hash)
            guard last.status == 200 else { throw client.unexpected(last, "PUT", path) }
            if keptWhatWasSent(last) { return }
        }
        throw integrityFailure(path, last)
    }

    /// The error for a file whose every PUT the service answered with an ETag that is not the
    /// MD5 of the body sent.
    func integrityFailure(_ path: String, _ answer: S3Answer) -> PublishError {
        let stated = answer.etag.map(configuration.quoted) ?? "none"
        guard let sent = answer.sentMD5.map(S3ETag.hex) else {
            return PublishError(
                .integrity, "the service answered each of \(Self.storeAttempts) PUTs with HTTP \(answer.status) before the whole body was sent: it cannot have kept it; nothing that points at this file was written",
                path: name + "/" + path)
        }
        return PublishError(
            .integrity,
            "the service answered each of \(Self.storeAttempts) PUTs with ETag \(stated), not the MD5 of the body sent (\(sent)): it keeps other bytes than it got (a gateway or proxy that changes or drops bodies?), or its ETags are not MD5s; nothing that points at this file was written",
            path: name + "/" + path)
    }

    public func read(_ path: String, limit: Int) throws(PublishError) -> StoredFile? {
        try redacting { () throws(PublishError) -> StoredFile? in try get(path, limit: limit) }
    }

    private func get(_ path: String, limit: Int) throws(PublishError) -> StoredFile? {
        let answer = try client.send("GET", path)
        switch answer.status {
        case 200:
            guard let etag = answer.etag else { throw PublishError(.unexpected, "GET answered without an ETag", path: name + "/" + path) }
            guard answer.body.count <= limit else { throw PublishError(.format, "is larger than \(limit) bytes", path: name + "/" + path) }
            return StoredFile(bytes: answer.body, validator: etag)
        case 404 where answer.errorCode == "NoSuchKey" || (answer.errorCode == nil && client.isS3(answer)): return nil
        default: throw client.unexpected(answer, "GET", path)
        }
    }

    public func replace(_ path: String, with bytes: [UInt8], content: OriginContent, expecting validator: String?) throws(PublishError) -> Bool {
        try redacting { () throws(PublishError) -> Bool in try conditionalPut(path, with: bytes, content: content, expecting: validator) }
    }

    private func conditionalPut(_ path: String, with bytes: [UInt8], content: OriginContent, expecting validator: String?) throws(PublishError) -> Bool {
        var headers = Self.headers(for: content, acl: configuration.acl)
        headers.append(validator.map { "If-Match: \($0)" } ?? "If-None-Match: *")
        let answer = try client.send("PUT", path, headers: headers, body: .bytes(bytes), payloadHash: SHA256Hasher.hash(bytes).hex)
        switch answer.status {
        case 200: return true
        // 412: changed since read; 409: another conditional write of it is in progress; 404:
        // gone since read (AWS answers If-Match on a missing key so).
        case 412, 409: return false
        case 404 where answer.errorCode == "NoSuchKey": return false
        default: throw client.unexpected(answer, "PUT", path)
        }
    }

    /// No lock: the conditional writes are the exclusion.
    public func changingMutableFiles<T>(_ body: () throws(PublishError) -> T) throws(PublishError) -> T { try body() }

    /// Runs `body`, its error with the secrets taken out.
    private func redacting<T>(_ body: () throws(PublishError) -> T) throws(PublishError) -> T {
        do { return try body() } catch { throw error.redacted(by: configuration) }
    }

    static func headers(for content: OriginContent, acl: String?) -> [String] {
        var headers = ["Content-Type: \(content.contentType)", "Cache-Control: \(content.cacheControl)"]
        if let encoding = content.contentEncoding { headers.append("Content-Encoding: \(encoding)") }
        if let acl { headers.append("x-amz-acl: \(acl)") }
        return headers
    }

    /// The size of a local file to send, where it is: a symbolic link is refused.
    static func size(ofLocal path: String) throws(PublishError) -> Int64 {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw PublishError(.local, "cannot stat the file to send", path: path) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw PublishError(.sourceMismatch, "not a regular file\(status.st_mode & S_IFMT == S_IFLNK ? " (a symbolic link)" : ""): only a regular file is sent", path: path)
        }
        return Int64(status.st_size)
    }

    /// The SHA-256 of a local file, read in 256 kB pieces.
    static func hash(of path: String) throws(PublishError) -> String {
        do throws(FormatError) {
            let file = try ReadableFile(path: path, followingLinks: false)
            let hasher = SHA256Hasher()
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 64)
            defer { buffer.deallocate() }
            while true {
                let count = try file.read(into: buffer)
                if count == 0 { return hasher.finalize().hex }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
        } catch {
            throw PublishError(error)
        }
    }
}
#endif
