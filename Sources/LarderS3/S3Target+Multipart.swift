#if canImport(CCurl)
import Foundation
import LarderFormat
import LarderPublish

extension S3Target {
    /// Puts a large file in parts where absent: a HEAD first (a multipart upload of a file
    /// that is there would send it all for nothing), then `CreateMultipartUpload`, the parts
    /// (each signed with its own SHA-256, retried on its own), and `CompleteMultipartUpload`
    /// with `If-None-Match: *`, so a publisher that finishes second learns it from a 412. Any
    /// failure aborts the upload, leaving no parts behind. Each part's ETag must be the MD5
    /// of the part sent (where it states one), else the part is sent again, ``storeAttempts``
    /// times in all; a file there of another size is replaced by an upload completed without
    /// the condition.
    /// - Returns: true when this call wrote the file, false when it was there (same size).
    func putInParts(_ path: String, from source: String, size: Int64, content: OriginContent) throws(PublishError) -> Bool {
        var replacing = false
        if let existing = try head(path) {
            guard existing != size else { return false }
            replacing = true
        }
        // `uploads=`, not `uploads`: libcurl 7.88 signs a bare name without its `=`, which S3's
        // canonical query has.
        let created = try client.send("POST", path, query: "uploads=", headers: Self.headers(for: content, acl: configuration.acl))
        guard created.status == 200, let uploadID = S3Answer.element("UploadId", in: created.body) else {
            throw client.unexpected(created, "POST ?uploads", path)
        }
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let query = "uploadId=" + (uploadID.addingPercentEncoding(withAllowedCharacters: unreserved) ?? uploadID)
        do throws(PublishError) {
            var parts: [String] = []
            var offset: Int64 = 0
            let partSize = max(5 << 20, configuration.partSize)
            while offset < size {
                let length = min(partSize, size - offset)
                let number = parts.count + 1
                let hash = try Self.hash(of: source, offset: offset, length: length)
                var kept: String?
                var refused: S3Answer?
                for _ in 1...Self.storeAttempts where kept == nil {
                    let answer = try client.send(
                        "PUT", path, query: "partNumber=\(number)&" + query, body: .fileRange(path: source, offset: offset, length: length), payloadHash: hash)
                    guard answer.status == 200, let etag = answer.etag else { throw client.unexpected(answer, "PUT part \(number)", path) }
                    if keptWhatWasSent(answer) { kept = etag } else { refused = answer }
                }
                guard let etag = kept else {
                    throw integrityFailure(path + " (part \(number))", refused ?? S3Answer(status: 200, headers: [:], body: []))
                }
                parts.append(etag)
                offset += length
            }
            let list = parts.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\($0.element)</ETag></Part>" }.joined()
            let body = Array("<CompleteMultipartUpload>\(list)</CompleteMultipartUpload>".utf8)
            let completed = try client.send(
                "POST", path, query: query, headers: ["Content-Type: application/xml"] + (replacing ? [] : ["If-None-Match: *"]), body: .bytes(body),
                payloadHash: SHA256Hasher.hash(body).hex)
            switch completed.status {
            // S3 may answer 200 and still report an error in the body.
            case 200 where completed.errorCode == nil: return true
            case 412, 409:
                abort(path, query)
                guard let existing = try head(path) else {
                    throw PublishError(.unexpected, "CompleteMultipartUpload answered \(completed.status) but the key is not there", path: name + "/" + path)
                }
                return try sameSize(existing, size, path)
            default: throw client.unexpected(completed, "POST ?uploadId", path)
            }
        } catch {
            abort(path, query)
            throw error
        }
    }

    /// `AbortMultipartUpload`, so no parts are kept (and billed). Its own failure is not the
    /// publish's: the error that led here is what the caller reports, and a bucket lifecycle
    /// rule (AbortIncompleteMultipartUpload) removes what an abort could not.
    private func abort(_ path: String, _ query: String) {
        do throws(PublishError) {
            let answer = try client.send("DELETE", path, query: query)
            if answer.status != 204 && answer.status != 200 && answer.status != 404 {
                FileHandle.standardError.write(Data("larder: could not abort the multipart upload of \(path): HTTP \(answer.status)\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("larder: could not abort the multipart upload of \(path): \(error)\n".utf8))
        }
    }

    func sameSize(_ existing: Int64, _ size: Int64, _ path: String) throws(PublishError) -> Bool {
        guard existing == size else {
            throw PublishError(.damaged, "is \(existing) bytes in the bucket where \(size) were published; delete it and publish again", path: name + "/" + path)
        }
        return false
    }

    /// The SHA-256 of `length` bytes of a file from `offset`.
    static func hash(of path: String, offset: Int64, length: Int64) throws(PublishError) -> String {
        do throws(FormatError) {
            let file = try ReadableFile(path: path, followingLinks: false)
            guard lseek(file.descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
                throw FormatError(.io, "cannot seek to byte \(offset)", path: path)
            }
            let hasher = SHA256Hasher()
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 64)
            defer { buffer.deallocate() }
            var left = length
            while left > 0 {
                let count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), left))]))
                guard count > 0 else { throw FormatError(.truncated, "ended \(left) bytes before the part's end", path: path) }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                left -= Int64(count)
            }
            return hasher.finalize().hex
        } catch {
            throw PublishError(error)
        }
    }
}
#endif
