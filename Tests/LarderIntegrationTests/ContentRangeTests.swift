import Testing
import LarderTransport

/// `Content-Range` as a resumed archive download reads it: the two forms RFC 9110 gives a 206
/// and a 416, and nothing looser (the `content-range` fuzz target holds it to printing back).
@Suite struct ContentRangeTests {
    @Test(arguments: [
        ("bytes 0-1023/4096", 0...1023 as ClosedRange<Int64>?, 4096 as Int64),
        ("bytes 100-199/1000", 100...199, 1000),
        ("bytes 0-9/1099511627776", 0...9, 1_099_511_627_776),
        ("BYTES 0-0/1", 0...0, 1),
        ("bytes 007-008/010", 7...8, 10),
        ("bytes 0-1/9223372036854775807", 0...1, Int64.max),
        ("bytes */4096", nil, 4096),
    ])
    func reads(_ text: String, bytes: ClosedRange<Int64>?, length: Int64) throws {
        let range = try #require(ContentRange(parsing: text))
        #expect(range == ContentRange(bytes: bytes, length: length))
        #expect(ContentRange(parsing: range.description) == range)
    }

    /// What the old split-on-separators reading took: other separators, spacing and signs.
    @Test(arguments: [
        "bytes-0-99/200", "bytes 0 99 200", "bytes +0-99/200", "bytes  0-1/2", " bytes 0-1/2", "bytes 0-1/2 ", "bytes=0-1/2",
        "bytes 0-99/*", "bytes 5-4/10", "bytes 0-10/10", "bytes -1-2/3", "bytes 0-1/9223372036854775808", "bytes 0-/10",
        "bytes -5/10", "bytes */", "bytes */-1", "items 0-1/2", "bytes 0-1-2/3", "bytes 0-1/2/3", "",
    ])
    func refuses(_ text: String) {
        #expect(ContentRange(parsing: text) == nil, "'\(text)'")
    }
}
