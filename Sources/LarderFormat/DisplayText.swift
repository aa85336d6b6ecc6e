/// Text from inputs (bundle names, paths, URLs, journey ids, messages that quote them) made
/// safe to print for people: nothing in it can move the cursor, erase or rewrite a line, set
/// a window title, ring the bell or reorder what follows, so a hostile name cannot print a
/// fake "verified OK".
///
/// Escaped: C0 controls and DEL (`\x1b`; `\n`, `\r` and `\t` by name), C1 controls
/// U+0080–U+009F (a terminal may take U+009B for CSI) and the characters that change the
/// direction or the lines of text (U+061C, U+200E, U+200F, U+2028, U+2029, U+202A–U+202E,
/// U+2066–U+2069) as `\u{202e}`; a byte that is not UTF-8 as `\xff`. Everything else,
/// backslashes included, is printed as it is, so escaping what was escaped changes nothing.
/// JSON output needs none of this: JSON escapes control characters itself.
public enum DisplayText {
    /// One value (a name, a path, a one-line message): every character above escaped,
    /// newlines too.
    /// - Complexity: O(n); text with nothing to escape is returned as it is.
    public static func escaping(_ text: some StringProtocol) -> String {
        escape(text, keepingNewlines: false)
    }

    /// Whole lines of output: the same, but `\n` kept, for a printer's own line breaks.
    public static func escaping(lines text: some StringProtocol) -> String {
        escape(text, keepingNewlines: true)
    }

    /// Bytes that may not be UTF-8 (a file name as the file system gave it): valid UTF-8 as
    /// ``escaping(_:)`` prints it, each byte of an invalid sequence as `\xNN`.
    public static func escaping(bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var out = ""
        var valid = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var position = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                valid.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                position += encoded.count
            case .error(let length):
                out += escaping(valid) + bytes[position..<position + length].map(hex).joined()
                valid = ""
                position += length
            case .emptyInput:
                return out + escaping(valid)
            }
        }
    }

    /// Whether the character is escaped.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func escape(_ text: some StringProtocol, keepingNewlines: Bool) -> String {
        // Most text (digests, sizes, ASCII names and paths) is printable ASCII: returned at once.
        if !text.utf8.contains(where: { $0 < 0x20 && !(keepingNewlines && $0 == 0x0A) || $0 >= 0x7F }) { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if !needsEscape(scalar) || (keepingNewlines && scalar == "\n") {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x80: out += hex(UInt8(scalar.value))
            default: out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }

    private static func hex(_ byte: UInt8) -> String {
        "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
    }
}
