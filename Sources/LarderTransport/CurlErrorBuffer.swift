#if canImport(CCurl)
import CCurl

/// The buffer libcurl writes a failed transfer's own words into (`CURLOPT_ERRORBUFFER`),
/// owned for as long as the easy handle may write to it.
package final class CurlErrorBuffer {
    /// The buffer's address, for `CURLOPT_ERRORBUFFER`.
    package let pointer: UnsafeMutablePointer<CChar>

    package init() {
        pointer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        pointer[0] = 0
    }

    deinit { pointer.deallocate() }

    /// What went wrong with a transfer that ended with `code`: libcurl's words in the buffer
    /// when it wrote any, else the code's own (`curl_easy_strerror`).
    package func detail(for code: CURLcode) -> String {
        pointer[0] != 0 ? String(cString: pointer) : String(cString: curl_easy_strerror(code))
    }
}
#endif
