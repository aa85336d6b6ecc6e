#if canImport(CCurl)
import Foundation

/// ``HTTPTransport`` on libcurl, the HTTP client of Linux (swift-corelibs-foundation's
/// URLSession runs on it too).
///
/// Every request is bounded whatever the server does: an overall time limit
/// (``HTTPRequest/timeout``), a minimum speed, a body bound checked as bytes arrive (and
/// against a declared `Content-Length` before the first byte), decoding only where asked for,
/// at most 5 redirects and only within the request's origin (``RedirectRule``), and 64 KiB of
/// header fields. Cancelling the calling
/// task ends the request within one turn of the transfer loop: no call into libcurl waits for
/// the caller, so nothing can deadlock the way URLSession's cancellation does on Linux
/// (swift-corelibs-foundation issue 5412).
///
/// All requests share one libcurl multi handle driven by one thread (`CurlLoop`), so
/// connections to an origin are reused across requests and callers.
public final class CurlTransport: HTTPTransport {
    /// The transport every caller of ``platformTransport()`` shares.
    public static let shared = CurlTransport()

    private let loop: CurlLoop

    public init() { loop = CurlLoop.shared }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse { try await collect(request) }

    public func send(_ request: HTTPRequest, into sink: any ResponseSink) async throws(TransportError) -> HTTPResponse {
        let transfer = CurlTransfer(request: request, sink: sink)
        let loop = loop
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                loop.submit(transfer)
            }
        } onCancel: {
            transfer.cancel()
            loop.wake()
        }
        return try transfer.outcome().get()
    }
}

#endif
