#if canImport(CCurl)
import CCurl
import Foundation
import LarderFormat
import LarderSystem
import Synchronization

/// One request on libcurl: its easy handle, the limits it is held to, and the callbacks that
/// parse its headers and pass its body to a ``ResponseSink``.
///
/// Made on the caller's thread, which sets ``continuation`` before submitting it; from then on
/// only the loop thread touches it (the loop's inbox mutex orders the two), except
/// ``cancel()``, an atomic flag, and ``outcome()``, which the caller reads once resumed.
final class CurlTransfer: @unchecked Sendable {
    /// Redirects one request may follow (each within its origin: ``RedirectRule``).
    static let maximumRedirects = 5

    let request: HTTPRequest
    private let sink: any ResponseSink
    var continuation: CheckedContinuation<Void, Never>?
    private let cancelled = Atomic<Bool>(false)
    /// Hands the result over: the loop thread sets it and releases the lock before resuming
    /// the caller, who takes the lock to read it, so everything the loop wrote before (the
    /// sink's state too) is visible to the caller, and is seen to be by ThreadSanitizer.
    private let handoff = Locked<Result<HTTPResponse, TransportError>?>(nil)

    private var easy: UnsafeMutableRawPointer?
    private var headerList: CurlHeaderList?
    private let errorBuffer = CurlErrorBuffer()
    private var head = ResponseHead()
    private var begun = false
    private var bodyBytes: Int64 = 0
    /// Why a callback stopped the transfer.
    private var failure: TransportError?
    /// The request's origin, and the URL a relative `Location` is resolved against (the last
    /// one followed), both as libcurl reads them.
    private var origin: HTTPOrigin?
    private var current: CurlURL?

    init(request: HTTPRequest, sink: any ResponseSink) {
        self.request = request
        self.sink = sink
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Asks for the transfer to stop; the loop finishes it on its next turn.
    func cancel() { cancelled.store(true, ordering: .releasing) }

    /// Makes and configures the easy handle.
    func prepare() throws(TransportError) -> UnsafeMutableRawPointer {
        guard let parsed = CurlURL(request.url.absoluteString), let origin = parsed.origin else {
            throw TransportError(.connection, "not an http or https URL libcurl can request", url: request.url)
        }
        self.origin = origin
        current = parsed
        guard let easy = curl_easy_init() else { throw TransportError(.connection, "libcurl cannot make a handle", url: request.url) }
        self.easy = easy
        // No `Expect: 100-continue` round trip before a body.
        guard let headerList = CurlHeaderList(request.headers.map { "\($0.key): \($0.value)" } + ["Expect:"]) else {
            throw TransportError(.connection, "libcurl cannot hold the request headers", url: request.url)
        }
        self.headerList = headerList
        let setup = CurlEasySetup(
            url: request.url.absoluteString, timeout: request.timeout, minimumSpeed: request.minimumSpeed, errorBuffer: errorBuffer, headers: headerList,
            context: Unmanaged.passUnretained(self).toOpaque(), headerFunction: curlHeaderCallback, writeFunction: curlWriteCallback)
        var codes = setup.apply(to: easy)
        codes += [
            // A redirect keeps the request's scheme (no https to http); the header callback
            // refuses any other origin before libcurl follows it.
            larder_easy_set_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, origin.scheme),
            larder_easy_set_long(easy, CURLOPT_FOLLOWLOCATION, 1),
            larder_easy_set_long(easy, CURLOPT_MAXREDIRS, Self.maximumRedirects),
            larder_easy_set_offset(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maximumBodyBytes)),
            larder_easy_set_long(easy, CURLOPT_BUFFERSIZE, 128 << 10),
        ]
        if request.acceptsCompression { codes.append(larder_easy_set_string(easy, CURLOPT_ACCEPT_ENCODING, "gzip")) }
        switch request.method {
        case "GET": break
        case "HEAD": codes.append(larder_easy_set_long(easy, CURLOPT_NOBODY, 1))
        default: codes.append(larder_easy_set_string(easy, CURLOPT_CUSTOMREQUEST, request.method))
        }
        if let body = request.body {
            codes.append(larder_easy_set_long(easy, CURLOPT_POST, 1))
            codes.append(larder_easy_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            codes.append(body.withUnsafeBytes { bytes in
                // COPYPOSTFIELDS copies POSTFIELDSIZE bytes, so the Data need not outlive the call.
                larder_easy_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(errorBuffer.pointer)))
            })
        }
        if let refusal = CurlEasySetup.refusal(codes) { throw TransportError(.connection, refusal, url: request.url) }
        return easy
    }

    // MARK: Callbacks (loop thread)

    /// One header line, status lines included (each starts a new response: a redirect, a
    /// `100 Continue`; ``ResponseHead``).
    fileprivate func header(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let read = head.add(line) else {
            failure = TransportError(.tooLarge, "the response's header fields pass \(ResponseHead.maximumBytes) bytes", url: request.url)
            return false
        }
        if case .field("location", let value) = read, (300..<400).contains(head.status) { return mayFollow(value) }
        return true
    }

    /// Whether libcurl may follow a redirect to `location`: only within the request's origin
    /// (``RedirectRule``), checked on the `Location` line, before libcurl reads the rest of
    /// the answer and sends anything anywhere. Every `Location` of a redirect is checked,
    /// though libcurl follows the first.
    private func mayFollow(_ location: String) -> Bool {
        guard let origin, let current else { return false }
        let target = current.resolving(location)
        if let refusal = RedirectRule.refusal(to: target?.origin, from: origin, location: location, url: request.url) {
            failure = refusal
            return false
        }
        self.current = target
        return true
    }

    /// Body bytes of the final response.
    fileprivate func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do throws(TransportError) {
            if !begun { try begin() }
            bodyBytes += Int64(bytes.count)
            guard bodyBytes <= request.maximumBodyBytes else { throw TransportError.tooLarge(request.url, limit: request.maximumBodyBytes) }
            try sink.receive(bytes)
            return true
        } catch {
            failure = error
            return false
        }
    }

    /// Hands the final response's head to the sink, refusing encodings nobody asked for.
    private func begin() throws(TransportError) {
        begun = true
        if let encoding = head.fields["content-encoding"]?.lowercased(), encoding != "identity" {
            guard request.acceptsCompression, encoding == "gzip" else {
                throw TransportError(.unexpectedEncoding, "the body came with Content-Encoding '\(encoding)', which was not asked for", url: request.url)
            }
        }
        try sink.begin(status: head.status, headers: head.fields)
    }

    // MARK: Finishing (loop thread)

    /// libcurl finished the transfer with `code`.
    func complete(_ code: CURLcode) {
        if code == CURLE_OK {
            do throws(TransportError) {
                if !begun { try begin() }
                var wire: curl_off_t = 0
                if let easy { _ = larder_easy_get_offset(easy, CURLINFO_SIZE_DOWNLOAD_T, &wire) }
                finish(.success(HTTPResponse(status: head.status, headers: head.fields, body: Data(), wireBytes: Int64(wire))))
            } catch {
                finish(.failure(error))
            }
            return
        }
        finish(.failure(failure ?? error(for: code)))
    }

    func finishCancelled() { finish(.failure(TransportError(.cancelled, "the request was cancelled", url: request.url))) }

    /// Releases libcurl's resources and resumes the caller (exactly once: the loop calls it
    /// once per transfer, and holds no lock meanwhile).
    func finish(_ outcome: Result<HTTPResponse, TransportError>) {
        if let easy { curl_easy_cleanup(easy) }
        easy = nil
        headerList = nil
        handoff.withLock { $0 = outcome }
        continuation?.resume()
        continuation = nil
    }

    /// The outcome, once the caller was resumed.
    func outcome() -> Result<HTTPResponse, TransportError> {
        handoff.withLock { $0 } ?? .failure(TransportError(.cancelled, "the request ended without an outcome", url: request.url))
    }

    /// The error for a failed libcurl result.
    private func error(for code: CURLcode) -> TransportError {
        let detail = errorBuffer.detail(for: code)
        let url = request.url
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            var elapsed: curl_off_t = 0
            if let easy { _ = larder_easy_get_offset(easy, CURLINFO_TOTAL_TIME_T, &elapsed) }
            let limit = Int64(CurlEasySetup.milliseconds(request.timeout)) * 1000
            if let speed = request.minimumSpeed, Int64(elapsed) < limit - 100_000 {
                return TransportError(.tooSlow, "fewer than \(speed.bytesPerSecond) bytes a second arrived for \(DurationText.describe(speed.window))", url: url)
            }
            return TransportError(.timeout, "no complete answer within \(DurationText.describe(request.timeout))", url: url)
        case CURLE_FILESIZE_EXCEEDED:
            return TransportError.tooLarge(url, limit: request.maximumBodyBytes)
        case CURLE_TOO_MANY_REDIRECTS:
            return TransportError(.redirectLoop, "more than \(Self.maximumRedirects) redirects", url: url)
        case CURLE_UNSUPPORTED_PROTOCOL:
            var redirects = 0
            if let easy { _ = larder_easy_get_long(easy, CURLINFO_REDIRECT_COUNT, &redirects) }
            if redirects > 0 { return TransportError(.redirectRefused, "a redirect to another protocol was not followed: \(detail)", url: url) }
            // Typically bytes a previous answer on the same connection sent past its length: the
            // connection is dropped, so trying again may work.
            return TransportError(.connection, "the answer is not HTTP/1.x: \(detail)", url: url)
        case CURLE_BAD_CONTENT_ENCODING:
            return TransportError(.unexpectedEncoding, "the body does not decode: \(detail)", url: url)
        default:
            return TransportError(.connection, "connection failed: \(detail)", url: url)
        }
    }
}

/// `CURLOPT_HEADERFUNCTION`: one header line; returning less than given stops the transfer.
private let curlHeaderCallback: curl_write_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return transfer.header(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

/// `CURLOPT_WRITEFUNCTION`: body bytes; returning less than given stops the transfer.
private let curlWriteCallback: curl_write_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return transfer.body(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}
#endif
