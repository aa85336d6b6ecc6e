import CWebKitGTK
import LarderRendering

/// One `WebKitURISchemeRequest`, referenced (`g_object_ref`) until it is answered exactly once
/// with ``respond(_:)``; a request dropped unanswered is answered with a 500 so WebKit never
/// waits for it.
@WebKitActor
final class SchemeRequest {
    private let pointer: UnsafeMutablePointer<WebKitURISchemeRequest>
    private var answered = false

    /// References `pointer`.
    init(_ pointer: UnsafeMutablePointer<WebKitURISchemeRequest>) {
        self.pointer = pointer
        g_object_ref(pointer)
    }

    isolated deinit {
        if !answered { respond(SchemeResponse(status: 500, message: "the request was dropped unanswered")) }
        g_object_unref(pointer)
    }

    /// The requested URL (`webkit_uri_scheme_request_get_uri`).
    var uri: String { String(cString: webkit_uri_scheme_request_get_uri(pointer)) }

    /// The HTTP method (`webkit_uri_scheme_request_get_http_method`), `GET` when WebKit gives none.
    var method: String { webkit_uri_scheme_request_get_http_method(pointer).map { String(cString: $0) } ?? "GET" }

    /// Answers the request (`webkit_uri_scheme_request_finish_with_response`): the body as a
    /// memory stream, the status, the content type and headers. Later calls do nothing.
    func respond(_ response: SchemeResponse) {
        guard !answered else { return }
        answered = true
        let bytes = response.body.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        let stream = g_memory_input_stream_new_from_bytes(bytes)
        let answer = webkit_uri_scheme_response_new(stream, gint64(response.body.count))
        webkit_uri_scheme_response_set_status(answer, guint(response.status), nil)
        webkit_uri_scheme_response_set_content_type(answer, response.mediaType)
        let headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_RESPONSE)
        soup_message_headers_append(headers, "Content-Type", response.mediaType)
        for header in response.headers { soup_message_headers_append(headers, header.name, header.value) }
        webkit_uri_scheme_response_set_http_headers(answer, headers)  // takes the headers
        webkit_uri_scheme_request_finish_with_response(pointer, answer)
        g_object_unref(answer)
        g_object_unref(stream)
        g_bytes_unref(bytes)
    }
}
