import Foundation

/// Where an `http:` or `https:` URL leads: its scheme, host and port (the scheme's default when
/// the URL names none), the unit browsers call an origin. A redirect is followed only within
/// the origin of the request (``RedirectRule``), so nothing a request carries (the
/// `X-Larder-*` headers, the body of a capture) reaches another server.
public struct HTTPOrigin: Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// The host as the URL names it, lowercased (an IPv6 address in brackets).
    public let host: String
    public let port: Int

    /// - Returns: nil unless `scheme` is http or https (any case), `host` is not empty and
    ///   `port` (nil for the scheme's default) is 1 to 65535.
    public init?(scheme: String, host: String, port: Int?) {
        let scheme = scheme.lowercased()
        guard scheme == "http" || scheme == "https", !host.isEmpty else { return nil }
        let port = port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
    }

    /// The origin of `url` as Foundation reads it (``URLSessionTransport`` compares what
    /// URLSession will connect to); nil for other schemes or a URL without a host.
    public init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true), let scheme = components.scheme,
            let host = components.host
        else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        self.init(scheme: scheme, host: bracketed, port: components.port)
    }

    /// `scheme://host:port`, the port always written.
    public var description: String { "\(scheme)://\(host):\(port)" }
}

/// Which redirects a transport follows: only those that stay within the origin of the request
/// (same scheme, host and port). Another host or port, and `https:` to `http:`, would hand the
/// request's header fields (the publishable key, a capture's visitor and session) and its body
/// to a server the request was not made for, so they are refused with
/// ``TransportError/Code/redirectRefused`` before anything is sent there.
public enum RedirectRule {
    /// - Parameters:
    ///   - target: the origin of the URL the redirect leads to (nil when it has none a
    ///     transport would connect to: another scheme, no host).
    ///   - origin: the origin of the request.
    ///   - location: the `Location` the server sent, for the message.
    ///   - url: the request's URL.
    /// - Returns: nil to follow, or the error that refuses it.
    public static func refusal(to target: HTTPOrigin?, from origin: HTTPOrigin, location: String, url: URL) -> TransportError? {
        guard let target else {
            return TransportError(
                .redirectRefused, "a redirect to '\(location.prefix(300))', which is not an http(s) URL, was not followed", url: url)
        }
        guard target != origin else { return nil }
        let what = target.scheme == "http" && origin.scheme == "https" ? "from https to http" : "to another origin (\(target))"
        return TransportError(
            .redirectRefused,
            "a redirect \(what) was not followed: only redirects within \(origin) are, so the request's headers and body "
                + "never reach another server; point the URL at where the resource is", url: url)
    }
}
