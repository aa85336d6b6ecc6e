import LarderTransport
import Testing

/// ``ResponseHead``, the bounded response-head parser ``CurlTransport`` and LarderS3 share:
/// a status line starts a response again, fields are joined, the bound counts every line and
/// holds for good (the `s3-answers` fuzz target holds it to printing back).
@Suite struct ResponseHeadTests {
    /// Feeds `lines` to `head`; what each line was, nil where it was refused.
    @discardableResult
    func feed(_ head: inout ResponseHead, _ lines: [String]) -> [ResponseHead.Line?] {
        lines.map { line in Array(line.utf8).withUnsafeBytes { head.add($0) } }
    }

    @Test func anInterimAnswerStartsTheFieldsAgain() {
        var head = ResponseHead()
        let read = feed(&head, ["HTTP/1.1 100 Continue\r\n", "X-Early: 1\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "ETag: \"x\"\r\n", "X-Amz-Request-Id : 1 \r\n"])
        #expect(read == [.status(100), .field(name: "x-early", value: "1"), .end, .status(200), .field(name: "etag", value: "\"x\""), .field(name: "x-amz-request-id", value: "1")])
        #expect(!head.isComplete, "a blank line after a 1xx ends no final answer")
        #expect(feed(&head, ["\r\n"]) == [.end] && head.isComplete)
        #expect(head.status == 200 && head.fields == ["etag": "\"x\"", "x-amz-request-id": "1"])
    }

    @Test func aRedirectStartsTheFieldsAgainAndTheBoundCountsBoth() {
        var head = ResponseHead()
        let first = ["HTTP/1.1 302 Found\r\n", "Location: /next\r\n", "Set-Cookie: a\r\n", "\r\n"]
        #expect(feed(&head, first)[1] == .field(name: "location", value: "/next"))
        #expect(head.status == 302 && head.isComplete)
        feed(&head, ["HTTP/2 200\r\n", "Content-Length: 3\r\n"])
        #expect(head.status == 200 && !head.isComplete && head.fields == ["content-length": "3"])
        #expect(head.bytes == (first + ["HTTP/2 200\r\n", "Content-Length: 3\r\n"]).map(\.utf8.count).reduce(0, +))
    }

    @Test func aRepeatedFieldKeepsItsValuesJoined() {
        var head = ResponseHead()
        let read = feed(&head, ["HTTP/1.1 200 OK\n", "Vary: Accept\r\n", "vary:  Range \r\n", "VARY:\r\n", "Vary: Origin\r\n", "no colon\r\n"])
        #expect(read[2] == .field(name: "vary", value: "Range"), "each line's own value")
        #expect(read[5] == .other)
        #expect(head.fields == ["vary": "Accept, Range, Origin"], "empty values are left out")
    }

    @Test func theBoundRefusesEveryLineOncePassed() {
        var head = ResponseHead()
        let line = "X-Padding: " + String(repeating: "a", count: 1_000) + "\r\n"
        var taken = 0
        while Array(line.utf8).withUnsafeBytes({ head.add($0) }) != nil { taken += 1 }
        #expect(taken == ResponseHead.maximumBytes / line.utf8.count && head.bytes <= ResponseHead.maximumBytes)
        #expect(head.isOverflowed)
        let before = (head.bytes, head.fields)
        #expect(feed(&head, ["a: b\r\n", "HTTP/1.1 200 OK\r\n", "\r\n"]) == [nil, nil, nil], "a short line after the bound is refused too")
        #expect(head.bytes == before.0 && head.fields == before.1 && !head.isComplete)
    }
}
