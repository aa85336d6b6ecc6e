#if canImport(CCurl)
import CCurl

/// Request header lines as libcurl takes them (`CURLOPT_HTTPHEADER`, a `curl_slist`), freed
/// with this; the easy handle must not be performed after.
package final class CurlHeaderList {
    /// The list, nil when there are no lines.
    package private(set) var list: UnsafeMutablePointer<curl_slist>?

    /// The lines (`Name: value`), in order; nil when libcurl cannot hold them.
    package init?(_ lines: [String]) {
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                return nil
            }
            list = appended
        }
    }

    deinit { curl_slist_free_all(list) }
}
#endif
