import Foundation
import LarderFormat
import LarderTransport

/// What the origin said about its triggers document.
enum TriggerAnswer: Sendable {
    /// 200 with a valid document.
    case fetched(TriggerDocument, etag: String?)
    /// 304 answering the validator we sent.
    case notModified
    /// 401 or 403: the key is refused.
    case denied(status: Int)
    /// 404: no triggers are published.
    case notFound
    /// Anything else: unreachable, 5xx, 429, a malformed document, a 304 we did not ask for.
    case failed(HostError, retryAfter: Duration?)
}

/// Fetches the origin's triggers document (`triggers.json`) with its ETag and the publishable
/// key, as ``ConfigurationClient`` fetches a journey's.
struct TriggerClient: Sendable {
    let transport: any HTTPTransport
    let clock: any HostClock

    /// The document's URL under the configuration's origin.
    static func url(_ configuration: JourneyConfiguration) -> URL {
        configuration.requestOrigin.appendingPathComponent(TriggerDocument.path)
    }

    func fetch(_ configuration: JourneyConfiguration, etag: String?, timeout: Duration) async -> TriggerAnswer {
        var headers = ["X-Larder-Key": configuration.publishableKey, "Accept": "application/json"]
        if let etag { headers["If-None-Match"] = etag }
        let url = Self.url(configuration)
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(url: url, headers: headers, timeout: timeout, maximumBodyBytes: Int64(TriggerDocument.maximumBytes)))
        } catch {
            return .failed(HostError(.unavailable, "cannot reach the origin for its triggers", transportError: error), retryAfter: nil)
        }
        switch response.status {
        case 200:
            do { return .fetched(try TriggerDocument(decoding: [UInt8](response.body)), etag: response.headers["etag"]) } catch {
                return .failed(HostError(.malformedDocument, "\(url.absoluteString) is not a triggers document: \(error)"), retryAfter: nil)
            }
        case 304 where etag != nil:
            return .notModified
        case 401, 403:
            return .denied(status: response.status)
        case 404:
            return .notFound
        default:
            let retryAfter = response.headers["retry-after"].flatMap { RetryAfter.delay($0, now: clock.now) }
            return .failed(HostError(.unavailable, "the origin answered \(url.absoluteString) unexpectedly", status: response.status), retryAfter: retryAfter)
        }
    }
}
