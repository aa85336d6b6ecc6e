import Foundation
import LarderHost

/// Which remote (`http:`, `https:`) origins journey content may reach. By default none: every
/// remote request from content is blocked and reported (``RendererCore/blockedRequests``).
///
/// WebKitGTK 2.50 has no per-subresource decision in the UI process (`decide-policy` sees
/// navigations only), so the policy reaches subresources (fetch, XHR, images, scripts, styles,
/// fonts, frames) as the `Content-Security-Policy` header of every document the `larder:`
/// scheme serves, and navigations through the view's `decide-policy` handler; both use the
/// same list of origins. A violation is reported by the page's `securitypolicyviolation` event.
public struct RemotePolicy: Sendable, Equatable {
    /// The origins allowed, each `scheme://host[:port]` in lowercase.
    public let allowedOrigins: [String]

    /// Blocks every remote request (the default).
    public static let blockAll = RemotePolicy(checked: [])

    private init(checked origins: [String]) { allowedOrigins = origins }

    /// Allows requests to exactly these origins.
    /// - Parameter origins: each `http://host[:port]` or `https://host[:port]`, without a path.
    /// - Throws: `HostError.Code.renderer` naming the first origin that is not of that form.
    public init(allowing origins: [String]) throws(HostError) {
        var checked: [String] = []
        for origin in origins {
            guard let normalized = Self.origin(of: origin), normalized == origin.lowercased() else {
                throw HostError(
                    .renderer, "an allowed origin must be http(s)://host[:port] without a path, not '\(origin.prefix(200))'",
                    resource: origin)
            }
            checked.append(normalized)
        }
        allowedOrigins = checked
    }

    /// Whether content may reach `url`: an `http:` or `https:` URL whose origin is allowed, or a
    /// `ws:` or `wss:` URL of such an origin.
    public func allows(_ url: String) -> Bool {
        let lowered = url.lowercased()
        let web = lowered.hasPrefix("ws://") || lowered.hasPrefix("wss://") ? "http" + url.dropFirst(2) : url
        guard let origin = Self.origin(of: web) else { return false }
        return allowedOrigins.contains(origin)
    }

    /// Whether the network may carry a request to `host:port` over `scheme` (`http` or
    /// `https`): what ``EgressFilter`` asks of every connection the engine's network process
    /// opens. The port is compared with each allowed origin's, its scheme's default when the
    /// origin names none.
    package func allows(scheme: String, host: String, port: Int) -> Bool {
        allowedOrigins.contains { origin in
            guard origin.hasPrefix(scheme + "://") else { return false }
            let authority = origin.dropFirst(scheme.count + 3)
            let defaultPort = scheme == "https" ? 443 : 80
            guard let colon = authority.lastIndex(of: ":") else { return authority == host && port == defaultPort }
            return authority[..<colon] == host && Int(authority[authority.index(after: colon)...]) == port
        }
    }

    /// The `Content-Security-Policy` of every answer the schemes serve but scripts: the
    /// bundle's own schemes, `data:` and `blob:` URLs, inline code (the samples use it), and the
    /// allowed origins (with their WebSocket twins, `ws:` for `http:` and `wss:` for `https:`,
    /// which WebKit does not match from an `http:` source); workers only from the bundle
    /// (`worker-src`: a worker made from a `blob:` or `data:` URL would inherit this policy, and
    /// WebKit reports nothing a worker's policy blocks); nothing else. A violation is reported
    /// by the page's `securitypolicyviolation` event in every frame.
    package var contentSecurityPolicy: String {
        let origins = allowedOrigins.map { " " + $0 }.joined()
        let sockets = allowedOrigins.map { " ws" + $0.dropFirst(4) }.joined()
        return "default-src \(SchemeRoute.bundleScheme): \(SchemeRoute.fontScheme): data: blob: 'unsafe-inline' 'unsafe-eval'\(origins)\(sockets); "
            + "worker-src \(SchemeRoute.bundleScheme):; form-action \(SchemeRoute.bundleScheme):\(origins)"
    }

    /// The `Content-Security-Policy` of scripts. A script's own policy matters only when it runs
    /// as a worker, where WebKit blocks without a word (no event, no report reaches the page):
    /// there, what the worker asks for goes to the network, where the egress filter, which
    /// nothing bypasses, refuses and reports it. It still keeps forms to the policy.
    package var workerPolicy: String {
        let origins = allowedOrigins.map { " " + $0 }.joined()
        return "default-src * \(SchemeRoute.bundleScheme): \(SchemeRoute.fontScheme): data: blob: 'unsafe-inline' 'unsafe-eval'; "
            + "form-action \(SchemeRoute.bundleScheme):\(origins)"
    }

    /// `scheme://host[:port]` of an http(s) URL, lowercased; nil for anything else.
    package static func origin(of text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }
}
