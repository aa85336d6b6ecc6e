import Foundation

/// The head of one request the web engine's network process sends to ``EgressFilter``, its
/// HTTP proxy, read strictly: a `CONNECT host:port` for a tunnel (`https:`, `wss:`), or an
/// absolute-form request (`GET http://host:port/path HTTP/1.1`) for `http:` and `ws:`.
///
/// Nothing else is a proxy request: an origin-form target (`GET /path`), another scheme, a
/// missing or malformed authority, or a head that is not ASCII lines ending in CRLF is a
/// ``ProxyRequest/Malformed`` answered with a 400, and nothing leaves.
package struct ProxyRequest: Equatable, Sendable {
    /// `CONNECT` (a tunnel the client speaks TLS through) or a request forwarded as it is.
    package enum Kind: Equatable, Sendable { case tunnel, forward }

    /// Why a head is not a proxy request.
    package struct Malformed: Error, Equatable, Sendable {
        package var reason: String
    }

    package var kind: Kind
    /// `http` or `https`: the scheme the remote origin is reached by (`ws:` travels as
    /// `http:`, and a tunnel is taken for `https:`).
    package var scheme: String
    /// The host as the engine wrote it, lowercased (an IPv6 literal keeps its brackets).
    package var host: String
    /// The port, the scheme's default when the target names none.
    package var port: Int
    /// What the request asks for, for reports: the absolute URL, or `https://host[:port]` for
    /// a tunnel.
    package var url: String
    /// For ``Kind/forward``: the head to send the origin (origin-form target, hop-by-hop and
    /// proxy fields dropped, `Connection: close` unless it upgrades to a WebSocket).
    package var forwardedHead: [UInt8]

    /// The most a request head may take, its blank line included.
    package static let maximumHeadSize = 32 * 1024

    /// Reads a request head: everything up to and including the blank line that ends it.
    /// - Throws: ``Malformed`` saying what is wrong.
    package static func parse(_ head: [UInt8]) throws(Malformed) -> ProxyRequest {
        guard head.count <= maximumHeadSize else { throw Malformed(reason: "the request head is over \(maximumHeadSize) bytes") }
        guard head.allSatisfy({ $0 == 0x09 || $0 == 0x0D || $0 == 0x0A || (0x20..<0x7F).contains($0) }) else {
            throw Malformed(reason: "the request head is not printable ASCII")
        }
        guard head.count >= 4, head.suffix(4).elementsEqual([0x0D, 0x0A, 0x0D, 0x0A]) else {
            throw Malformed(reason: "the request head does not end with a blank line")
        }
        // Bytes, not characters: "\r\n" is one Character in Swift.
        var lines = String(decoding: head.dropLast(4), as: UTF8.self).components(separatedBy: "\r\n")
        guard !lines.isEmpty, lines.allSatisfy({ !$0.contains("\n") && !$0.contains("\r") }) else {
            throw Malformed(reason: "the request head has a bare CR or LF")
        }
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2] == "HTTP/1.1" || requestLine[2] == "HTTP/1.0",
            !requestLine[0].isEmpty, requestLine[0].allSatisfy({ $0.isLetter && $0.isUppercase })
        else { throw Malformed(reason: "the request line is not 'METHOD target HTTP/1.x'") }
        let method = String(requestLine[0])
        let target = String(requestLine[1])
        var fields: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                !line[..<colon].contains(where: { $0 == " " || $0 == "\t" })
            else { throw Malformed(reason: "a header line is not 'Name: value'") }
            fields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t"])))
        }
        if method == "CONNECT" {
            let (host, port) = try authority(target, defaultPort: nil)
            return ProxyRequest(
                kind: .tunnel, scheme: "https", host: host, port: port, url: "https://\(host)" + (port == 443 ? "" : ":\(port)"),
                forwardedHead: [])
        }
        let lowered = target.lowercased()
        let scheme: String
        let rest: Substring
        if lowered.hasPrefix("http://") {
            scheme = "http"
            rest = target.dropFirst(7)
        } else if lowered.hasPrefix("ws://") {
            scheme = "http"
            rest = target.dropFirst(5)
        } else {
            throw Malformed(reason: "the target is not an absolute http: URL")
        }
        let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let (host, port) = try authority(String(rest[..<pathStart]), defaultPort: 80)
        var path = String(rest[pathStart...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
        let upgrades = fields.contains { $0.name.lowercased() == "upgrade" }
        // Every Proxy-* field is for this proxy, not the origin (a page cannot set one: the
        // Fetch standard forbids the prefix), like Keep-Alive and, without an upgrade, Connection.
        let dropped: Set<String> = upgrades ? ["keep-alive"] : ["keep-alive", "connection"]
        var forwarded = "\(method) \(path) \(requestLine[2])\r\n"
        for field in fields {
            let name = field.name.lowercased()
            guard !dropped.contains(name), !name.hasPrefix("proxy-") else { continue }
            forwarded += "\(field.name): \(field.value)\r\n"
        }
        if !upgrades { forwarded += "Connection: close\r\n" }
        forwarded += "\r\n"
        return ProxyRequest(
            kind: .forward, scheme: scheme, host: host, port: port, url: "http://\(host)" + (port == 80 ? "" : ":\(port)") + path,
            forwardedHead: Array(forwarded.utf8))
    }

    /// `host:port` (`[v6]:port`); the port may be left out only where there is a default.
    private static func authority(_ text: String, defaultPort: Int?) throws(Malformed) -> (String, Int) {
        guard !text.isEmpty, !text.contains("@") else { throw Malformed(reason: "the target has no host, or has user information") }
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw Malformed(reason: "an IPv6 host without its closing bracket") }
            host = text[...close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Malformed(reason: "text after an IPv6 host") }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text[...]
        }
        guard !host.isEmpty,
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._[]:".contains($0)) })
        else { throw Malformed(reason: "the host '\(host.prefix(100))' is not a host name or address") }
        let port: Int
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isNumber), let number = Int(portText),
                (1...65535).contains(number)
            else { throw Malformed(reason: "the port '\(portText.prefix(10))' is not 1 to 65535") }
            port = number
        } else if let defaultPort {
            port = defaultPort
        } else {
            throw Malformed(reason: "CONNECT needs host:port")
        }
        return (host.lowercased(), port)
    }
}
