import Testing
@testable import LarderFormat

@Suite struct JSONTests {
    func parse(_ text: String) throws(FormatError) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func parsesEveryKind() throws {
        let value = try parse(#" {"a": [1, -2, 3.5, true, false, null], "b": "x\n\u00e9\ud83d\ude00", "c": {}} "#)
        #expect(
            value
                == .object([
                    "a": .array([.int(1), .int(-2), .double(3.5), .bool(true), .bool(false), .null]),
                    "b": .string("x\né😀"), "c": .object([:]),
                ]))
    }

    @Test func canonicalFormSortsKeysAndDropsWhitespace() throws {
        let value = try parse(#"{ "b" : 1, "a" : [ "x/y", "q\"\\\t\u0001" ], "é": true }"#)
        #expect(String(decoding: value.canonicalBytes, as: UTF8.self) == #"{"a":["x/y","q\"\\\t\u0001"],"b":1,"é":true}"#)
        // Canonical bytes parse back to the same value and encode to the same bytes.
        #expect(try JSONValue.parse(value.canonicalBytes).canonicalBytes == value.canonicalBytes)
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "01", "1.", "-", "tru", "\"unterminated",
        "\"bad \\q escape\"", "\"\\ud800\"", "{\"a\":1}{", "{\"a\":1,\"a\":2}", "\"tab\there\"",
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ])
    func rejectsMalformedJSON(_ text: String) {
        #expect(throws: FormatError.self) { try parse(text) }
    }

    @Test func rejectsInvalidUTF8InStrings() {
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(throws: FormatError.self) { try JSONValue.parse(bytes) }
    }

    @Test func namesTheDuplicateKey() {
        do throws(FormatError) {
            _ = try parse(#"{"name":"a","name":"b"}"#)
            Issue.record("duplicate key accepted")
        } catch {
            #expect(error.code == .invalidJSON)
            #expect(error.message.contains("duplicate key 'name'"))
        }
    }
}
