import Foundation
import LarderHost

/// Which remote (`http:`, `https:`) origins journey content may reach. By default none: every
/// remote request from content is blocked and reported (``WebKitRenderer/blockedRequests``).
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
    /// - Throws: ``HostError/Code/renderer`` naming the first origin that is not of that form.
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

    /// Whether content may reach `url` (an `http:` or `https:` URL whose origin is allowed).
    public func allows(_ url: String) -> Bool {
        guard let origin = Self.origin(of: url) else { return false }
        return allowedOrigins.contains(origin)
    }

    /// The `Content-Security-Policy` of documents served from a bundle: the bundle's own
    /// schemes, `data:` and `blob:` URLs, inline code (the samples use it), and the allowed
    /// origins; nothing else.
    var contentSecurityPolicy: String {
        let origins = allowedOrigins.map { " " + $0 }.joined()
        return "default-src \(WebEngine.bundleScheme): \(WebEngine.fontScheme): data: blob: 'unsafe-inline' 'unsafe-eval'\(origins); "
            + "form-action \(WebEngine.bundleScheme):\(origins)"
    }

    /// `scheme://host[:port]` of an http(s) URL, lowercased; nil for anything else.
    static func origin(of text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }
}
