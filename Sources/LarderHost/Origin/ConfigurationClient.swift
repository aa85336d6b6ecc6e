import Foundation
import LarderFormat
import LarderTransport

/// What the origin said about a journey's configuration document.
enum ConfigurationAnswer: Sendable {
    /// 200 with a valid document.
    case fetched(JourneyDocument, etag: String?)
    /// 304 answering the validator we sent for this scope.
    case notModified
    /// 401 or 403.
    case denied(status: Int)
    /// 404: the journey is unknown (a denial once confirmed).
    case notFound
    /// Anything else: unreachable, 5xx, 429, a malformed document, a 304 we did not ask for.
    /// `retryAfter` is the server's `Retry-After`, when it sent one.
    case failed(HostError, retryAfter: Duration?)
}

/// Fetches a journey's configuration document with its ETag.
struct ConfigurationClient: Sendable {
    let transport: any HTTPTransport
    let clock: any HostClock

    /// Asks the origin for the document.
    /// - Parameter etag: the validator of the document cached for the same scope, if any.
    func fetch(_ configuration: JourneyConfiguration, etag: String?, timeout: Duration) async -> ConfigurationAnswer {
        var headers = ["X-Larder-Key": configuration.publishableKey, "Accept": "application/json"]
        if let etag { headers["If-None-Match"] = etag }
        let url = configuration.documentURL
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(url: url, headers: headers, timeout: timeout, maximumBodyBytes: Int64(JourneyDocument.maximumBytes)))
        } catch {
            return .failed(HostError(.unavailable, "cannot reach the origin", transportError: error), retryAfter: nil)
        }
        switch response.status {
        case 200:
            do {
                let document = try JourneyDocument(decoding: [UInt8](response.body))
                guard document.journey == configuration.journeyID else {
                    return .failed(
                        HostError(.malformedDocument, "\(url.absoluteString) describes journey '\(document.journey)'"),
                        retryAfter: nil)
                }
                return .fetched(document, etag: response.headers["etag"])
            } catch {
                return .failed(HostError(.malformedDocument, "\(url.absoluteString) is not a journey document: \(error)"), retryAfter: nil)
            }
        case 304 where etag != nil:
            return .notModified
        case 401, 403:
            return .denied(status: response.status)
        case 404:
            return .notFound
        default:
            let retryAfter = response.headers["retry-after"].flatMap { RetryAfter.delay($0, now: clock.now) }
            return .failed(
                HostError(.unavailable, "the origin answered \(url.absoluteString) unexpectedly", status: response.status),
                retryAfter: retryAfter)
        }
    }
}
