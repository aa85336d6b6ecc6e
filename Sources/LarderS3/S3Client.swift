#if canImport(CCurl)
import Foundation
import LarderFormat
import LarderPublish

/// Sends signed requests to one bucket, retrying what may succeed later (5xx, `SlowDown`,
/// `RequestTimeout`, connections that fail or drop) a bounded number of times with growing
/// pauses, and turns the answers that mean a wrong setup into typed errors.
package struct S3Client: Sendable {
    package let configuration: S3Configuration
    /// The handles, and their open connections, the requests reuse.
    let connections = S3Connections()

    package init(configuration: S3Configuration) { self.configuration = configuration }

    /// SHA-256 of no bytes, the payload hash of a request without a body.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// Sends one request, retried while it fails in a way that may pass.
    /// - Parameters:
    ///   - path: the origin path (empty for the bucket itself).
    ///   - query: a query string for the request, e.g. `uploads`.
    ///   - headers: fields besides the signature's, e.g. `If-None-Match: *`.
    ///   - payloadHash: the body's SHA-256 in hex, signed as `x-amz-content-sha256` (AWS checks
    ///     the body against it; moto 5.2.5 only signs it, so the tests check the stored bytes).
    /// - Returns: the answer, whatever its status, once it is not worth retrying.
    /// - Throws: ``PublishError/Code/unavailable`` after the last 5xx or `SlowDown`,
    ///   ``PublishError/Code/connection`` after the last failed connection (at once for an
    ///   answer no S3 service gives, ``PublishError/Code/notObjectStore``, or a file to send
    ///   that is not what was checked, ``PublishError/Code/sourceMismatch``).
    func send(
        _ method: String, _ path: String, query: String? = nil, headers: [String] = [], body: S3Body = .none, payloadHash: String = emptyPayloadHash
    ) throws(PublishError) -> S3Answer {
        var fields = headers + ["x-amz-content-sha256: \(payloadHash)"]
        if let token = configuration.credentials.sessionToken { fields.append("x-amz-security-token: \(token)") }
        let url = configuration.url(for: path) + (query.map { "?" + $0 } ?? "")
        let credentials = configuration.credentials
        var pause = configuration.firstRetryPause
        var last = ""
        for attempt in 1...max(1, configuration.attempts) {
            if attempt > 1 {
                Thread.sleep(forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18)
                pause = min(pause * 2, .seconds(2))
            }
            let request = S3Request(
                method: method, url: url, headers: fields, body: body, payloadHash: payloadHash, signing: "aws:amz:\(configuration.region):s3",
                userPassword: credentials.accessKeyID + ":" + credentials.secretAccessKey, timeout: configuration.timeout,
                stallTimeout: configuration.stallTimeout)
            let answer: S3Answer
            do throws(S3ConnectionFailure) { answer = try request.perform(on: connections) } catch {
                switch error.kind {
                case .connection:
                    last = error.message
                    continue
                case .answer: throw PublishError(.notObjectStore, "\(method) \(url): \(error.message)", path: configuration.name + "/" + path)
                case .source: throw PublishError(.sourceMismatch, error.message, path: configuration.name + "/" + path)
                }
            }
            if Self.isWorthRetrying(answer) {
                last = "HTTP \(answer.status)" + (answer.errorCode.map { " \(configuration.quoted($0))" } ?? "")
                continue
            }
            return answer
        }
        let tries = "\(configuration.attempts) attempts"
        if last.hasPrefix("HTTP ") {
            throw PublishError(.unavailable, "\(method) \(url): the service answered \(last) to \(tries); try again later", path: configuration.name + "/" + path)
        }
        throw PublishError(.connection, "\(method) \(url): no answer after \(tries): \(last)", path: configuration.name + "/" + path)
    }

    package static func isWorthRetrying(_ answer: S3Answer) -> Bool {
        answer.status >= 500 || answer.status == 429 || ["SlowDown", "RequestTimeout", "InternalError"].contains(answer.errorCode ?? "")
    }

    /// The typed error for an answer that means the setup is wrong, nil for any other.
    package func refusal(_ answer: S3Answer, _ method: String, _ path: String) -> PublishError? {
        let place = configuration.name + (path.isEmpty ? "" : "/" + path)
        let code = answer.errorCode.map(configuration.quoted) ?? ""
        let said = answer.errorMessage.map { ": \(configuration.quoted($0))" } ?? ""
        switch (answer.status, code) {
        case (_, "NoSuchBucket"):
            return PublishError(.noSuchBucket, "the bucket '\(configuration.bucket)' does not exist at \(configuration.endpoint.absoluteString)", path: place)
        case (_, "InvalidAccessKeyId"), (_, "InvalidToken"), (_, "ExpiredToken"), (_, "TokenRefreshRequired"):
            return PublishError(.credentials, "the service does not know these credentials (\(code)\(said)); check AWS_ACCESS_KEY_ID and AWS_SESSION_TOKEN", path: place)
        case (_, "SignatureDoesNotMatch"):
            return PublishError(
                .credentials, "the signature does not match (\(code)): check AWS_SECRET_ACCESS_KEY and the region (\(configuration.region))", path: place)
        case (403, _), (_, "AccessDenied"):
            return PublishError(.credentials, "access denied to \(method) \(place) (\(code.isEmpty ? "403" : code)\(said)): the credentials may not do this", path: place)
        case (301, _), (_, "PermanentRedirect"), (_, "AuthorizationHeaderMalformed"):
            return PublishError(
                .credentials, "the bucket is in another region than \(configuration.region) (\(code.isEmpty ? "301" : code)); set --region or AWS_REGION", path: place)
        default:
            return isS3(answer) ? nil : PublishError(
                .notObjectStore,
                "\(configuration.endpoint.absoluteString) answered \(method) with HTTP \(answer.status) but not as an S3 service does (no request id, no S3 error document); check --endpoint",
                path: place)
        }
    }

    /// Whether an answer comes from an S3 service: S3 (and moto, MinIO, R2, Ceph) name each
    /// request in a header, and error bodies are `<Error>` documents.
    package func isS3(_ answer: S3Answer) -> Bool {
        answer.headers["x-amz-request-id"] != nil || answer.headers["x-amzn-requestid"] != nil || answer.headers["x-amz-id-2"] != nil
            || answer.errorCode != nil
    }

    /// The error for any answer not otherwise handled.
    package func unexpected(_ answer: S3Answer, _ method: String, _ path: String) -> PublishError {
        refusal(answer, method, path)
            ?? PublishError(
                .unexpected,
                "\(method) answered HTTP \(answer.status)" + (answer.errorCode.map { " \(configuration.quoted($0))" } ?? "")
                    + (answer.errorMessage.map { ": \(configuration.quoted($0))" } ?? ""),
                path: configuration.name + "/" + path)
    }
}
#endif
