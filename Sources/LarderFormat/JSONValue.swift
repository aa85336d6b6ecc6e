import Foundation
/// A JSON value, as parsed strictly by ``JSONValue/parse(_:maximumValues:)`` and written canonically by
/// ``JSONValue/canonicalBytes``.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// An integer written without fraction or exponent.
    case int(Int64)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue {
    /// The deepest nesting the parser accepts.
    public static let maximumDepth = 64

    /// Parses RFC 8259 JSON strictly: one value, no trailing bytes, valid UTF-8, no duplicate
    /// object keys, nesting at most ``maximumDepth``.
    /// - Parameters:
    ///   - maximumValues: the most values (objects, arrays, strings, numbers, …) the
    ///     document may hold, which bounds the memory its tree takes whatever the bytes are.
    ///   - bytes: the UTF-8 text of one JSON value.
    /// - Throws: ``FormatError`` with code ``FormatError/Code/invalidJSON`` naming the byte
    ///   offset, or ``FormatError/Code/limitExceeded`` past `maximumValues`.
    public static func parse<Bytes: ContiguousBytes>(_ bytes: Bytes, maximumValues: Int = .max) throws(FormatError) -> JSONValue {
        let result: Result<JSONValue, FormatError> = bytes.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), maximumValues: maximumValues)
            do throws(FormatError) {
                let value = try parser.parseDocument()
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0
    var depth = 0
    var valuesLeft: Int

    init(bytes: UnsafeBufferPointer<UInt8>, maximumValues: Int) {
        self.bytes = bytes
        valuesLeft = maximumValues
    }

    mutating func parseDocument() throws(FormatError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard offset == bytes.count else { throw fail("unexpected bytes after the JSON value") }
        return value
    }

    func fail(_ message: String) -> FormatError {
        FormatError(.invalidJSON, "malformed JSON: \(message)", offset: offset)
    }

    mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    mutating func expect(_ literal: StaticString) throws(FormatError) {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { throw fail("unexpected end of input") }
        for index in 0..<count where bytes[offset + index] != literal.utf8Start[index] {
            throw fail("expected '\(literal)'")
        }
        offset += count
    }

    mutating func parseValue() throws(FormatError) -> JSONValue {
        guard offset < bytes.count else { throw fail("unexpected end of input") }
        valuesLeft -= 1
        guard valuesLeft >= 0 else { throw FormatError(.limitExceeded, "more JSON values than a document of this kind may hold") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func enter() throws(FormatError) {
        depth += 1
        guard depth <= JSONValue.maximumDepth else { throw fail("nesting deeper than \(JSONValue.maximumDepth)") }
    }

    mutating func parseObject() throws(FormatError) -> JSONValue {
        try enter()
        offset += 1
        var object: [String: JSONValue] = [:]
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw fail("expected a key string") }
            let keyOffset = offset
            let key = try parseString()
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            offset += 1
            skipWhitespace()
            let value = try parseValue()
            guard object.updateValue(value, forKey: key) == nil else {
                offset = keyOffset
                throw fail("duplicate key '\(key)'")
            }
            skipWhitespace()
            guard offset < bytes.count else { throw fail("unexpected end of input") }
            if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
            if bytes[offset] == UInt8(ascii: "}") { offset += 1; break }
            throw fail("expected ',' or '}'")
        }
        depth -= 1
        return .object(object)
    }

    mutating func parseArray() throws(FormatError) -> JSONValue {
        try enter()
        offset += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            guard offset < bytes.count else { throw fail("unexpected end of input") }
            if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
            if bytes[offset] == UInt8(ascii: "]") { offset += 1; break }
            throw fail("expected ',' or ']'")
        }
        depth -= 1
        return .array(array)
    }

    mutating func parseHex4() throws(FormatError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let char = bytes[offset]
            let nibble: UInt32
            switch char {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt32(char - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt32(char - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = UInt32(char - UInt8(ascii: "A") + 10)
            default: throw fail("bad hex digit in \\u escape")
            }
            value = value << 4 | nibble
            offset += 1
        }
        return value
    }

    mutating func parseString() throws(FormatError) -> String {
        offset += 1
        var runStart = offset
        var result = ""
        func flushRun(_ end: Int) throws(FormatError) {
            guard end > runStart else { return }
            let run = UnsafeBufferPointer(rebasing: bytes[runStart..<end])
            guard let text = String(validating: run, as: UTF8.self) else {
                throw FormatError(.invalidJSON, "malformed JSON: string is not valid UTF-8", offset: runStart)
            }
            result += text
        }
        while true {
            guard offset < bytes.count else { throw fail("unterminated string") }
            let char = bytes[offset]
            if char == UInt8(ascii: "\"") {
                try flushRun(offset)
                offset += 1
                return result
            }
            if char < 0x20 { throw fail("control character in string") }
            if char != UInt8(ascii: "\\") { offset += 1; continue }
            try flushRun(offset)
            offset += 1
            guard offset < bytes.count else { throw fail("unterminated escape") }
            let escape = bytes[offset]
            offset += 1
            switch escape {
            case UInt8(ascii: "\""): result += "\""
            case UInt8(ascii: "\\"): result += "\\"
            case UInt8(ascii: "/"): result += "/"
            case UInt8(ascii: "b"): result += "\u{08}"
            case UInt8(ascii: "f"): result += "\u{0C}"
            case UInt8(ascii: "n"): result += "\n"
            case UInt8(ascii: "r"): result += "\r"
            case UInt8(ascii: "t"): result += "\t"
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard offset + 2 <= bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                        bytes[offset + 1] == UInt8(ascii: "u")
                    else { throw fail("unpaired surrogate") }
                    offset += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("unpaired surrogate") }
                result.unicodeScalars.append(scalar)
            default: throw fail("unknown escape")
            }
            runStart = offset
        }
    }

    mutating func parseNumber() throws(FormatError) -> JSONValue {
        let start = offset
        var isInteger = true
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        func digits() -> Int {
            let begin = offset
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
            return offset - begin
        }
        let intStart = offset
        let intDigits = digits()
        guard intDigits > 0 else { throw fail("expected digits") }
        if intDigits > 1 && bytes[intStart] == UInt8(ascii: "0") { throw fail("leading zero in number") }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard digits() > 0 else { throw fail("expected digits after '.'") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw fail("expected exponent digits") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw fail("number out of range") }
        return .double(value)
    }
}
