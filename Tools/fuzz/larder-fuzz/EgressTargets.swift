import LarderEgress

/// The egress filter's request parser: what the web engine's network process sends its proxy,
/// which a page shapes (its URLs, its header fields).
enum EgressTargets {
    static let proxyRequest = FuzzTarget(
        name: "proxy-request",
        summary: "ProxyRequest.parse; host and port are the request line's, an accepted head re-serialises to an equal request",
        maximumLength: 4096,
        run: { bytes in
            let head = Array(bytes)
            let request: ProxyRequest
            do throws(ProxyRequest.Malformed) { request = try ProxyRequest.parse(head) } catch {
                require(!error.reason.isEmpty, "a refusal without a reason")
                return
            }
            checkBounds(request, head: head)
            checkAuthority(request, head: head)
            checkReserialised(request, head: head)
        },
        seeds: { proxyHeads() })

    /// What any accepted request keeps: a head within the bound, http(s) only, a host of host
    /// characters in lowercase, a port of 1 to 65535, a tunnel only for https.
    private static func checkBounds(_ request: ProxyRequest, head: [UInt8]) {
        require(head.count <= ProxyRequest.maximumHeadSize, "a head of \(head.count) bytes accepted")
        require(head.allSatisfy { $0 == 0x09 || $0 == 0x0D || $0 == 0x0A || (0x20..<0x7F).contains($0) }, "a head that is not ASCII accepted")
        require(!request.host.isEmpty && request.host == request.host.lowercased(), "host '\(request.host)'")
        require(request.host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._[]:".contains($0)) }, "host '\(request.host)'")
        require((1...65535).contains(request.port), "port \(request.port)")
        switch request.kind {
        case .tunnel: require(request.scheme == "https" && request.forwardedHead.isEmpty, "a tunnel for \(request.scheme)")
        case .forward: require(request.scheme == "http" && !request.forwardedHead.isEmpty, "a forward for \(request.scheme)")
        }
    }

    /// The host and port are what the request line says, read here on its own: the target of
    /// `CONNECT`, or the authority of an absolute `http:`/`ws:` target.
    private static func checkAuthority(_ request: ProxyRequest, head: [UInt8]) {
        let text = String(decoding: head, as: UTF8.self)
        guard let lineEnd = text.range(of: "\r\n") else {
            require(false, "accepted without a request line")
            return
        }
        let parts = text[..<lineEnd.lowerBound].split(separator: " ", omittingEmptySubsequences: false)
        require(parts.count == 3, "request line '\(text[..<lineEnd.lowerBound])'")
        let target = parts[1].lowercased()
        let authority: Substring
        let defaultPort: Int
        if parts[0] == "CONNECT" {
            authority = Substring(target)
            defaultPort = -1
        } else {
            let rest = target.hasPrefix("http://") ? target.dropFirst(7) : target.dropFirst(5)
            require(target.hasPrefix("http://") || target.hasPrefix("ws://"), "target '\(target)'")
            authority = rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex)]
            defaultPort = 80
        }
        let written = request.port == defaultPort && authority == Substring(request.host)
        let withPort: Bool = {
            guard authority.hasPrefix(request.host + ":") else { return false }
            let digits = authority.dropFirst(request.host.count + 1)
            return Int(digits) == request.port && digits.allSatisfy(\.isNumber)
        }()
        require(written || withPort, "'\(authority)' read as host '\(request.host)' port \(request.port)")
        let origin = "\(request.scheme)://\(request.host)" + (request.port == (request.kind == .tunnel ? 443 : 80) ? "" : ":\(request.port)")
        require(request.url.hasPrefix(origin), "url '\(request.url)' is not of \(origin)")
    }

    /// An accepted request written again (a `CONNECT` from its host and port, a forward's
    /// absolute target put back into what it forwards) parses to the same request, so what
    /// the filter decides on and what it sends agree; the forwarded head is lines ending in
    /// CRLF with no proxy field, one `Connection: close` unless it upgrades.
    private static func checkReserialised(_ request: ProxyRequest, head: [UInt8]) {
        switch request.kind {
        case .tunnel:
            let again = Array("CONNECT \(request.host):\(request.port) HTTP/1.1\r\n\r\n".utf8)
            guard let reparsed = try? ProxyRequest.parse(again) else {
                require(false, "the tunnel \(request.url) does not read back")
                return
            }
            require(reparsed == request, "the tunnel \(request.url) reads back as \(reparsed.url)")
        case .forward:
            // Bytes, not characters: "\r\n" is one Character in Swift.
            require(request.forwardedHead.suffix(4).elementsEqual([0x0D, 0x0A, 0x0D, 0x0A]), "the forwarded head does not end with a blank line")
            let lines = String(decoding: request.forwardedHead.dropLast(4), as: UTF8.self).components(separatedBy: "\r\n")
            require(lines.allSatisfy { !$0.contains("\r") && !$0.contains("\n") }, "a bare CR or LF forwarded")
            let names = lines.dropFirst().map { $0.prefix { $0 != ":" }.lowercased() }
            require(!names.contains { $0.hasPrefix("proxy-") || $0 == "keep-alive" }, "a proxy field forwarded")
            let upgrades = names.contains("upgrade")
            require(upgrades || names.filter { $0 == "connection" }.count == 1 && lines.last == "Connection: close", "no single Connection: close")
            let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
            require(requestLine.count == 3 && (requestLine[1].hasPrefix("/")), "forwarded request line '\(lines[0])'")
            let absolute = "\(requestLine[0]) http://\(request.host):\(request.port)\(requestLine[1]) \(requestLine[2])\r\n"
                + lines.dropFirst().joined(separator: "\r\n") + (lines.count > 1 ? "\r\n" : "") + "\r\n"
            guard let reparsed = try? ProxyRequest.parse(Array(absolute.utf8)) else {
                require(false, "the forward of \(request.url) does not read back")
                return
            }
            require(reparsed.host == request.host && reparsed.port == request.port && reparsed.kind == .forward, "reads back as \(reparsed.url)")
            require(reparsed.url == request.url, "'\(request.url)' reads back as '\(reparsed.url)'")
            require(reparsed.forwardedHead == request.forwardedHead, "the forwarded head of \(request.url) changes when read again")
        }
    }

    /// What the network process sends: tunnels and absolute-form requests as libsoup and
    /// GLib write them, WebSocket upgrades, and the refusals the unit tests know.
    static func proxyHeads() -> [[UInt8]] {
        [
            "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\nProxy-Connection: keep-alive\r\nUser-Agent: GLib/2.74\r\n\r\n",
            "CONNECT [::1]:8443 HTTP/1.0\r\n\r\n",
            "CONNECT 127.0.0.1:00443 HTTP/1.1\r\n\r\n",
            "GET http://127.0.0.1:8080/a/b?c=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: */*\r\nProxy-Connection: keep-alive\r\n\r\n",
            "POST HTTP://Example.COM?x HTTP/1.1\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n\r\n",
            "GET ws://127.0.0.1:9/socket HTTP/1.1\r\nHost: 127.0.0.1:9\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n",
            "GET http://h/#frag HTTP/1.1\r\nConnection: keep-alive\r\nKeep-Alive: 5\r\nProxy-Authorization: Basic eA==\r\n\r\n",
            "HEAD http://[2001:db8::1]:80/ HTTP/1.0\r\nX:\t tabbed \t\r\n\r\n",
            "GET /relative HTTP/1.1\r\n\r\n", "GET ftp://example.com/ HTTP/1.1\r\n\r\n", "CONNECT example.com HTTP/1.1\r\n\r\n",
            "CONNECT example.com:65536 HTTP/1.1\r\n\r\n", "GET http://user:pw@example.com/ HTTP/1.1\r\n\r\n",
            "GET http://example.com/ HTTP/1.1\r\nX: a\nInjected: b\r\n\r\n", "GET http://example.com/ HTTP/1.1\r\n",
        ].map { Array($0.utf8) }
    }
}
