import LarderCache
import LarderFormat
import LarderHost

/// How the core answers a scheme request: at once, or after a read of the cache that the
/// owner runs off the engine's thread (a first read hashes the object) and hands back to
/// ``RendererCore/complete(_:with:)`` on it.
public enum SchemeAnswer: Sendable {
    /// Answer with this now (a refusal).
    case now(SchemeResponse)
    /// Run ``SchemeRead/perform()`` off the engine's thread, then complete it.
    case read(SchemeRead)
}

/// A read of a bundle file or font from the cache for one scheme request.
public struct SchemeRead: Sendable {
    /// The requested URL.
    let uri: String
    /// Whether the first screen needs it.
    let essential: Bool
    let work: @Sendable () throws(CacheError) -> SchemeResponse
    let failure: @Sendable (CacheError) -> HostError

    /// Reads and verifies the bytes (blocking: off the engine's thread).
    public func perform() -> Result<SchemeResponse, CacheError> {
        Result { () throws(CacheError) in try work() }
    }
}

extension RendererCore {
    /// Answers a `larder:` or `larder-font:` request of this page.
    ///
    /// The URL is routed without touching the file system (`SchemeRoute`); a bundle file is
    /// read through the lease and a font through `LarderCache.resolveFont(_:)`. Every answer,
    /// whatever its role or media type and errors included, carries the remote policy as its
    /// `Content-Security-Policy` (scripts `RemotePolicy.workerPolicy`, what a worker runs
    /// under); fonts also carry `Access-Control-Allow-Origin: *` (WebKitGTK 2.50 needs it for
    /// `fetch()` of a font from the bundle's origin).
    /// - Parameters:
    ///   - uri: the URL as the engine gives it (scheme in lowercase).
    ///   - method: the HTTP method.
    public func schemeRequest(url uri: String, method: String) -> SchemeAnswer {
        guard let content else {
            return .now(refusal(uri, 404, HostError(.renderer, "nothing is loaded in this renderer", resource: uri), essential: false))
        }
        guard ["GET", "HEAD"].contains(method) else {
            return .now(refusal(uri, 405, HostError(.renderer, "only GET and HEAD are served", resource: uri), essential: false))
        }
        switch SchemeRoute.of(uri, bundle: content.bundle) {
        case .refused(let status, let message):
            return .now(
                refusal(uri, status, HostError(.renderer, "refused '\(uri.prefix(300))': \(message)", resource: uri), essential: false))
        case .file(let path):
            guard let file = content.manifest.file(at: path) else {
                return .now(
                    refusal(
                        uri, 404, HostError(.renderer, "the bundle has no file '\(path)'", resource: path, digest: content.bundle),
                        essential: false))
            }
            let lease = content.lease
            let policy = file.role == .script ? configuration.remote.workerPolicy : configuration.remote.contentSecurityPolicy
            return .read(
                SchemeRead(
                    uri: uri, essential: file.essential || path == content.manifest.entry,
                    work: { () throws(CacheError) in SchemeResponse(mediaType: file.mediaType, body: try lease.data(at: path)).withPolicy(policy) },
                    failure: { error in
                        HostError(
                            .renderer, "cannot serve '\(path)' from the cache: \(error.message)", resource: path,
                            digest: error.digest ?? file.digest, cacheError: error)
                    }))
        case .font(let font):
            let cache = content.cache
            let policy = configuration.remote.contentSecurityPolicy
            return .read(
                SchemeRead(
                    uri: uri, essential: true,
                    work: { () throws(CacheError) in
                        let resolved = try cache.resolveFont(font)
                        return SchemeResponse(
                            mediaType: resolved.mediaType, headers: [(name: "Access-Control-Allow-Origin", value: "*")], body: resolved.bytes
                        ).withPolicy(policy)
                    },
                    failure: { error in
                        HostError(
                            .renderer, "cannot resolve the font '\(font)': \(error.message)", resource: font.description,
                            digest: error.digest ?? font.digest, cacheError: error)
                    }))
        }
    }

    /// Records the outcome of a read and gives the answer to send.
    public func complete(_ read: SchemeRead, with outcome: Result<SchemeResponse, CacheError>) -> SchemeResponse {
        switch outcome {
        case .success(let response):
            record(AnsweredRequest(record: ServedRequest(url: read.uri, status: 200, bytes: response.body.count), failure: nil, essential: read.essential))
            return response
        case .failure(let error):
            return refusal(read.uri, SchemeResponse.status(for: error), read.failure(error), essential: read.essential)
        }
    }

    /// Answers a request whole: ``schemeRequest(url:method:)``, the read (if any) on a task of
    /// its own, then ``complete(_:with:)`` back on the caller's thread.
    nonisolated(nonsending) public func answer(url uri: String, method: String) async -> SchemeResponse {
        switch schemeRequest(url: uri, method: method) {
        case .now(let response):
            return response
        case .read(let read):
            let outcome = await Task.detached(priority: .userInitiated) { read.perform() }.value
            return complete(read, with: outcome)
        }
    }

    /// The refusal answered for every request whose renderer is gone: a 410 under the policy
    /// that blocks everything.
    package static var noRenderer: SchemeResponse {
        SchemeResponse(status: 410, message: "no renderer owns this web view any more").withPolicy(RemotePolicy.blockAll.contentSecurityPolicy)
    }

    private func refusal(_ uri: String, _ status: Int, _ error: HostError, essential: Bool) -> SchemeResponse {
        record(
            AnsweredRequest(
                record: ServedRequest(url: uri, status: status, bytes: 0, error: error.message), failure: error, essential: essential))
        return SchemeResponse(status: status, message: error.message).withPolicy(configuration.remote.contentSecurityPolicy)
    }

    private func record(_ answered: AnsweredRequest) {
        servedRequests.appendKeepingLast(Self.logLimit, answered.record)
        attempt?.requests.append(answered)
    }
}
