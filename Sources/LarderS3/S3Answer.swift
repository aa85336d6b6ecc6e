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

/// An answer's status line and header fields as libcurl hands them over, one line at a
/// time, within a bound: a service that sends megabytes of headers gets a message saying so
/// (libcurl itself would answer "Out of memory"). Interim answers (`100 Continue`) and the
/// answers before a redirect start the fields again; the bound counts every line.
package struct S3AnswerHead: Sendable {
    /// The most header bytes read from one answer: S3 sends well under 2 KiB.
    package static let maximumBytes = 64 << 10

    package private(set) var status = 0
    package private(set) var fields: [String: String] = [:]
    /// Header bytes received so far.
    package private(set) var bytes = 0
    /// The blank line ending a final (non-1xx) answer's headers arrived.
    package private(set) var isComplete = false
    /// A line was refused: the lines went past ``maximumBytes``; every later one is refused.
    package private(set) var isOverflowed = false

    package init() {}

    /// Adds one header line (with its line ending, as libcurl passes it).
    /// - Returns: false, changing nothing, once the lines are past ``maximumBytes``.
    package mutating func add(_ line: UnsafeRawBufferPointer) -> Bool {
        guard !isOverflowed, bytes + line.count <= Self.maximumBytes else {
            isOverflowed = true
            return false
        }
        bytes += line.count
        let text = Self.trimmed(line[...])
        if text.starts(with: "HTTP/".utf8) {
            let parts = text.split(separator: UInt8(ascii: " "), maxSplits: 2)
            status = parts.count > 1 ? Int(String(decoding: parts[1], as: UTF8.self)) ?? 0 : 0
            fields = [:]
            isComplete = false
        } else if text.isEmpty {
            if status >= 200 { isComplete = true }
        } else if let colon = text.firstIndex(of: UInt8(ascii: ":")) {
            let name = String(decoding: Self.trimmed(text[..<colon]), as: UTF8.self).lowercased()
            fields[name] = String(decoding: Self.trimmed(text[(colon + 1)...]), as: UTF8.self)
        }
        return true
    }

    /// `bytes` without the spaces, tabs and line endings around it.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        let space: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        guard let first = bytes.firstIndex(where: { !space($0) }), let last = bytes.lastIndex(where: { !space($0) }) else { return bytes[bytes.startIndex..<bytes.startIndex] }
        return bytes[first...last]
    }

    /// The message for an answer whose headers were refused past the bound, or that libcurl
    /// refused for a line past its own (100 KiB: its "Out of memory").
    package static var tooLarge: String {
        "the answer's headers were larger than \(maximumBytes >> 10) KiB (an S3 service sends a few hundred bytes); the endpoint is not answering as an S3 service does"
    }
}
