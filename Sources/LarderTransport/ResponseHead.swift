/// A response's status line and header fields as libcurl hands them over, one line at a time,
/// within a bound: a server that sends megabytes of headers is refused once they pass
/// ``maximumBytes`` (libcurl itself would answer "Out of memory", past 100 KiB for one line).
///
/// A status line starts a new response: interim answers (`100 Continue`) and the answers
/// before a redirect start the fields again, while the bound counts every line. Names are
/// lowercased; a field sent more than once keeps its (non-empty) values joined with `", "`.
package struct ResponseHead: Sendable {
    /// What one line was.
    package enum Line: Sendable, Equatable {
        /// A status line (`HTTP/1.1 200 OK`), with its status (0 when there is none).
        case status(Int)
        /// A header field, the name lowercased, the value as this line has it (not joined).
        case field(name: String, value: String)
        /// The blank line ending a response's headers.
        case end
        /// Anything else (no colon): ignored.
        case other
    }

    /// The most header bytes read from one request's responses: servers send a few KiB.
    package static let maximumBytes = 64 << 10

    package private(set) var status = 0
    /// The current response's fields, lowercased names.
    package private(set) var fields: [String: String] = [:]
    /// Header bytes received so far, every response's.
    package private(set) var bytes = 0
    /// The blank line ending a final (non-1xx) response's headers arrived.
    package private(set) var isComplete = false
    /// A line was refused: the lines went past ``maximumBytes``; every later one is refused.
    package private(set) var isOverflowed = false

    package init() {}

    /// Adds one header line (with its line ending, as libcurl passes it).
    /// - Returns: what the line was; nil, changing nothing, once the lines are past
    ///   ``maximumBytes``.
    package mutating func add(_ line: UnsafeRawBufferPointer) -> Line? {
        guard !isOverflowed, bytes + line.count <= Self.maximumBytes else {
            isOverflowed = true
            return nil
        }
        bytes += line.count
        let text = Self.trimmed(line[...])
        if text.starts(with: "HTTP/".utf8) {
            let parts = text.split(separator: UInt8(ascii: " "), maxSplits: 2)
            status = parts.count > 1 ? Int(String(decoding: parts[1], as: UTF8.self)) ?? 0 : 0
            fields = [:]
            isComplete = false
            return .status(status)
        } else if text.isEmpty {
            if status >= 200 { isComplete = true }
            return .end
        } else if let colon = text.firstIndex(of: UInt8(ascii: ":")) {
            let name = String(decoding: Self.trimmed(text[..<colon]), as: UTF8.self).lowercased()
            let value = String(decoding: Self.trimmed(text[(colon + 1)...]), as: UTF8.self)
            fields[name] = Self.joined(fields[name], value)
            return .field(name: name, value: value)
        }
        return .other
    }

    /// A field's values so far with one more: empty ones are left out, as a list's empty
    /// elements are (RFC 9110, 5.6.1).
    private static func joined(_ values: String?, _ value: String) -> String {
        guard let values, !values.isEmpty else { return value }
        return value.isEmpty ? values : values + ", " + value
    }

    /// `bytes` without the spaces, tabs and line endings around it.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        let space: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        guard let first = bytes.firstIndex(where: { !space($0) }), let last = bytes.lastIndex(where: { !space($0) }) else { return bytes[bytes.startIndex..<bytes.startIndex] }
        return bytes[first...last]
    }
}
