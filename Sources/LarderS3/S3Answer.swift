import Foundation

/// One answer: status, header fields (lowercased names) and up to a bounded body.
package struct S3Answer: Sendable {
    package var status: Int
    package var headers: [String: String]
    package var body: [UInt8]
    /// The MD5 of the request body this answers, as it was sent (nil for a request without
    /// one): what a single-part PUT's ETag states, when the service keeps what it got.
    package var sentMD5: [UInt8]?

    package init(status: Int, headers: [String: String], body: [UInt8], sentMD5: [UInt8]? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.sentMD5 = sentMD5
    }

    package var etag: String? { headers["etag"] }
    /// The `<Code>` of an S3 error document, nil when the body is not one.
    package var errorCode: String? { Self.element("Code", in: body) }
    package var errorMessage: String? { Self.element("Message", in: body) }

    /// The bytes of S3's XML answers a value is looked for in: error documents, the
    /// multipart answers and listings are far shorter.
    package static let scannedBytes = 64 << 10

    /// The text between the first `<name>` in the first ``scannedBytes`` of `body` and the
    /// next `</name>` (error documents' `Code` and `Message`, `InitiateMultipartUploadResult`'s
    /// `UploadId`), as written: S3 escapes nothing in these values that Larder reads. Found
    /// by bytes, invalid UTF-8 in it repaired.
    /// - Complexity: O(*n*·*m*) for *n* bytes scanned and a tag of *m*.
    package static func element(_ name: String, in body: [UInt8]) -> String? {
        let open = Array("<\(name)>".utf8)
        let close = Array("</\(name)>".utf8)
        let scanned = min(body.count, scannedBytes)
        guard let start = offset(of: open, in: body, from: 0, to: scanned).map({ $0 + open.count }),
            let end = offset(of: close, in: body, from: start, to: scanned)
        else { return nil }
        return String(decoding: body[start..<end], as: UTF8.self)
    }

    /// Where `needle` first starts in `bytes[from..<to]`: `memchr(3)` for its first byte,
    /// `memcmp(3)` for the rest.
    /// - Complexity: O(*n*·*m*) at worst, about O(*n*) for text.
    package static func offset(of needle: [UInt8], in bytes: [UInt8], from: Int, to: Int) -> Int? {
        guard let first = needle.first, from >= 0, to <= bytes.count, to - from >= needle.count else { return nil }
        return bytes.withUnsafeBufferPointer { haystack -> Int? in
            needle.withUnsafeBufferPointer { needle -> Int? in
                guard let base = haystack.baseAddress, let wanted = needle.baseAddress else { return nil }
                var at = from
                let last = to - needle.count
                while at <= last {
                    guard let hit = memchr(base + at, Int32(first), last - at + 1) else { return nil }
                    let index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + index, wanted, needle.count) == 0 { return index }
                    at = index + 1
                }
                return nil
            }
        }
    }
}
