import Foundation
import LarderPublish

/// Where and how to reach a bucket: `s3://<bucket>/<prefix>`, the endpoint of any
/// S3-compatible service, the region requests are signed for, the addressing style, and the
/// credentials.
public struct S3Configuration: Sendable {
    public var bucket: String
    /// Prepended to every origin path: empty, or ending in `/`.
    public var prefix: String
    /// `scheme://host[:port]`, e.g. `https://s3.eu-west-1.amazonaws.com` (the default for the
    /// region) or `http://127.0.0.1:9000`; never a user or password (requests are signed with
    /// the credentials, and the endpoint is named in messages).
    public var endpoint: URL
    /// A password written into the endpoint given (`http://user:password@host`): dropped from
    /// ``endpoint``, kept only so that no message shows it (``redact(_:)``).
    var endpointPassword: String? {
        didSet { secrets = Self.secrets(credentials, endpointPassword) }
    }
    public var region: String
    /// `https://<bucket>.<host>/<key>` instead of `https://<host>/<bucket>/<key>`.
    public var virtualHostAddressing: Bool
    public var credentials: S3Credentials {
        didSet { secrets = Self.secrets(credentials, endpointPassword) }
    }
    /// What ``redact(_:)`` takes out, longest first (``secrets(_:_:)``), kept current with
    /// the credentials and the endpoint's password.
    private(set) var secrets: [String] = []
    /// A canned ACL put on every file (`public-read` for a bucket devices read directly); nil
    /// by default: a CDN in front reads with its own credentials.
    public var acl: String?
    /// Attempts of one request on 5xx, `SlowDown` and failed connections, and the first pause
    /// between them (doubled each time, up to 2 s).
    public var attempts: Int = 5
    public var firstRetryPause: Duration = .milliseconds(100)
    /// Files larger than this go up in parts (multipart upload), each ``partSize`` bytes but
    /// the last; S3 takes at most 5 GB in one PUT, and a part sent again after a failure costs
    /// less than the whole file.
    public var multipartThreshold: Int64 = 64 << 20
    /// At least 5 MiB (S3's smallest part but the last).
    public var partSize: Int64 = 16 << 20
    /// The longest one request may take.
    public var timeout: Duration = .seconds(300)
    /// How long a request may move fewer than one byte a second (a service that stops
    /// answering mid-request, or drips) before it is given up and sent again like a dropped
    /// connection; whole seconds, at least 1.
    public var stallTimeout: Duration = .seconds(60)

    /// - Parameters:
    ///   - origin: `s3://<bucket>` or `s3://<bucket>/<prefix>`.
    ///   - endpoint: the service's base URL; nil for AWS (`https://s3.<region>.amazonaws.com`).
    ///   - region: the region requests are signed for.
    ///   - virtualHostAddressing: address the bucket as a host name (`<bucket>.<endpoint host>`)
    ///     rather than as the first path component.
    ///   - credentials: the keys requests are signed with.
    ///   - acl: a canned ACL for every file written (`public-read` for a bucket devices read
    ///     directly); nil sends none.
    /// - Throws: `PublishError` with `PublishError.Code.unexpected` for an origin that is
    ///   not an S3 URL, or an endpoint that is not an http(s) URL.
    public init(
        origin: String, endpoint: String?, region: String, virtualHostAddressing: Bool = false, credentials: S3Credentials, acl: String? = nil
    ) throws(PublishError) {
        guard let (bucket, prefix) = Self.parse(origin) else {
            throw PublishError(
                .unexpected, "'\(origin)' is not an S3 origin: expected s3://<bucket>[/<prefix>], the bucket 3-63 lowercase letters, digits, '.' and '-'")
        }
        let text = endpoint ?? "https://s3.\(region).amazonaws.com"
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil,
            url.path.isEmpty || url.path == "/", url.query == nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else {
            throw PublishError(.unexpected, "'\(Self.redactingUserInfo(text))' is not an endpoint: expected http(s)://<host>[:<port>]")
        }
        endpointPassword = components.password.flatMap { $0.isEmpty ? nil : $0 }
        components.user = nil
        components.password = nil
        guard let bare = components.url else {
            throw PublishError(.unexpected, "'\(Self.redactingUserInfo(text))' is not an endpoint: expected http(s)://<host>[:<port>]")
        }
        self.bucket = bucket
        self.prefix = prefix
        self.endpoint = bare
        self.region = region
        self.virtualHostAddressing = virtualHostAddressing
        self.credentials = credentials
        secrets = Self.secrets(credentials, endpointPassword)
        self.acl = acl
    }

    /// Whether a `--origin` value names a bucket rather than a folder.
    public static func isS3Origin(_ origin: String) -> Bool { origin.hasPrefix("s3://") }

    /// Bucket and prefix of `s3://bucket/prefix`.
    static func parse(_ origin: String) -> (String, String)? {
        guard origin.hasPrefix("s3://") else { return nil }
        let rest = origin.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        let allowed = bucket.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
        guard (3...63).contains(bucket.utf8.count), allowed else { return nil }
        var prefix = String(rest.dropFirst(bucket.count).dropFirst())
        while prefix.hasSuffix("/") { prefix.removeLast() }
        guard prefix.isEmpty || !prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else { return nil }
        if !prefix.isEmpty { prefix += "/" }
        return (bucket, prefix)
    }

    /// The origin as written: `s3://bucket/prefix`.
    public var name: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/" + prefix.dropLast()) }

    /// The URL of an origin path (empty for the bucket itself, `?<query>` for a request on it).
    func url(for path: String) -> String {
        let key = path.isEmpty || path.hasPrefix("?") ? path : Self.escape(prefix + path)
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.path = ""
        if virtualHostAddressing {
            components.host = bucket + "." + (endpoint.host ?? "")
            return (components.string ?? endpoint.absoluteString) + "/" + key
        }
        return (components.string ?? endpoint.absoluteString) + "/" + bucket + "/" + key
    }

    /// The base URL devices read the origin from when the bucket is public (path-style).
    public var readURL: String { url(for: "") }

    /// Percent-encodes a key as S3 signs it: everything but unreserved characters and `/`.
    static func escape(_ key: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")
        return key.addingPercentEncoding(withAllowedCharacters: allowed) ?? key
    }
}
