#if canImport(CCurl)
import CCurl

/// The options every libcurl request of Larder's starts with: its URL over HTTP or HTTPS, no
/// signals, the timeouts (one rule: the whole request, and connecting within the lesser of
/// that and 10 s), the slowest transfer tolerated, the error buffer, the request header lines,
/// and the header and body callbacks with their context. ``CurlTransfer`` and LarderS3's
/// request each add their own options after.
package struct CurlEasySetup {
    package var url: String
    /// How long the whole request may take, from connecting to the last body byte.
    package var timeout: Duration
    /// Nil tolerates any speed within ``timeout``.
    package var minimumSpeed: HTTPRequest.MinimumSpeed?
    package var errorBuffer: CurlErrorBuffer
    package var headers: CurlHeaderList
    /// What the callbacks are given (`CURLOPT_HEADERDATA`, `CURLOPT_WRITEDATA`).
    package var context: UnsafeMutableRawPointer
    /// `CURLOPT_HEADERFUNCTION`: one header line, status lines included.
    package var headerFunction: curl_write_callback
    /// `CURLOPT_WRITEFUNCTION`: body bytes.
    package var writeFunction: curl_write_callback

    package init(
        url: String, timeout: Duration, minimumSpeed: HTTPRequest.MinimumSpeed?, errorBuffer: CurlErrorBuffer, headers: CurlHeaderList,
        context: UnsafeMutableRawPointer, headerFunction: curl_write_callback, writeFunction: curl_write_callback
    ) {
        self.url = url
        self.timeout = timeout
        self.minimumSpeed = minimumSpeed
        self.errorBuffer = errorBuffer
        self.headers = headers
        self.context = context
        self.headerFunction = headerFunction
        self.writeFunction = writeFunction
    }

    /// Sets the options on `easy`.
    /// - Returns: libcurl's answer to each option, `CURLE_OK` when it took it.
    package func apply(to easy: UnsafeMutableRawPointer) -> [CURLcode] {
        var codes: [CURLcode] = [
            larder_easy_set_string(easy, CURLOPT_URL, url),
            larder_easy_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"),
            larder_easy_set_long(easy, CURLOPT_NOSIGNAL, 1),
            larder_easy_set_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout)),
            larder_easy_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(min(timeout, .seconds(10)))),
            larder_easy_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer.pointer),
            larder_easy_set_write_function(easy, CURLOPT_HEADERFUNCTION, headerFunction),
            larder_easy_set_pointer(easy, CURLOPT_HEADERDATA, context),
            larder_easy_set_write_function(easy, CURLOPT_WRITEFUNCTION, writeFunction),
            larder_easy_set_pointer(easy, CURLOPT_WRITEDATA, context),
            larder_easy_set_list(easy, CURLOPT_HTTPHEADER, headers.list),
        ]
        if let minimumSpeed {
            codes.append(larder_easy_set_long(easy, CURLOPT_LOW_SPEED_LIMIT, max(1, minimumSpeed.bytesPerSecond)))
            codes.append(larder_easy_set_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(minimumSpeed.window.components.seconds))))
        }
        return codes
    }

    /// Why the options in `codes` were not all taken, nil when they were.
    package static func refusal(_ codes: [CURLcode]) -> String? {
        guard let failed = codes.first(where: { $0 != CURLE_OK }) else { return nil }
        return "libcurl refused an option: \(String(cString: curl_easy_strerror(failed)))"
    }

    /// `duration` in whole milliseconds, at least 1 (libcurl reads 0 as no limit).
    package static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(clamping: seconds) &* 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
#endif
