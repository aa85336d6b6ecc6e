/// Finds `larder-font://…` URLs in HTML or CSS bytes: each runs from the scheme to the first
/// quote, parenthesis, whitespace, `;`, `,`, `<`, `>` or `\`.
enum FontScanner {
    static func urls(in bytes: [UInt8]) -> [String] {
        let prefix = Array("larder-font://".utf8)
        let terminators = Set("\"'() \t\r\n\u{0C};,<>\\".utf8)
        var found: [String] = []
        var index = 0
        while index + prefix.count <= bytes.count {
            guard bytes[index] == prefix[0], bytes[index..<index + prefix.count].elementsEqual(prefix) else {
                index += 1
                continue
            }
            var end = index + prefix.count
            while end < bytes.count, !terminators.contains(bytes[end]) { end += 1 }
            found.append(String(decoding: bytes[index..<end], as: UTF8.self))
            index = end
        }
        return found
    }
}
