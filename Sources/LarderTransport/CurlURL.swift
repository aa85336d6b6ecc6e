#if canImport(CCurl)
import CCurl

/// A URL parsed by libcurl's URL API (`CURLU`), the parser libcurl itself follows redirects
/// with, so what ``CurlTransfer`` checks is what libcurl would connect to.
final class CurlURL {
    private let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    /// Parses an absolute URL (`curl_url`, `curl_url_set`); nil when libcurl refuses it.
    convenience init?(_ text: String) {
        guard let handle = curl_url() else { return nil }
        self.init(handle: handle)
        guard curl_url_set(handle, CURLUPART_URL, text, 0) == CURLUE_OK else { return nil }
    }

    deinit { curl_url_cleanup(handle) }

    /// `reference` resolved against this URL as libcurl resolves a `Location` when it follows
    /// one (`curl_url_dup`, then `curl_url_set` with `CURLU_URLENCODE | CURLU_ALLOW_SPACE`);
    /// nil when it does not parse.
    func resolving(_ reference: String) -> CurlURL? {
        guard let copy = curl_url_dup(handle) else { return nil }
        let resolved = CurlURL(handle: copy)
        let flags = UInt32(larder_curlu_urlencode | larder_curlu_allow_space)
        guard curl_url_set(copy, CURLUPART_URL, reference, flags) == CURLUE_OK else { return nil }
        return resolved
    }

    /// Its scheme, host and port (`curl_url_get`, the port with `CURLU_DEFAULT_PORT`); nil
    /// for a scheme other than http(s).
    var origin: HTTPOrigin? {
        guard let scheme = part(CURLUPART_SCHEME, flags: 0), let host = part(CURLUPART_HOST, flags: 0),
            let port = part(CURLUPART_PORT, flags: UInt32(larder_curlu_default_port)).flatMap({ Int($0) })
        else { return nil }
        return HTTPOrigin(scheme: scheme, host: host, port: port)
    }

    private func part(_ which: CURLUPart, flags: UInt32) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
#endif
