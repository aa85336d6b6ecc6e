import LarderCache
import LarderFormat
import LarderHost

extension WebKitRenderer {
    /// Answers a `larder:` or `larder-font:` request of this renderer's view.
    ///
    /// The URL is routed without touching the file system (``SchemeRoute``); a bundle file is
    /// read through the lease and a font through ``LarderCache/resolveFont(_:)``, off the main
    /// loop (a first read hashes the object), and the answer is sent from the main loop.
    /// Every answer, whatever its role or media type and errors included, carries the remote
    /// policy as its `Content-Security-Policy` (scripts ``RemotePolicy/workerPolicy``, what a
    /// worker runs under); fonts also carry
    /// `Access-Control-Allow-Origin: *` (WebKitGTK 2.50 needs it for `fetch()` of a font from
    /// the bundle's origin).
    func handle(_ request: SchemeRequest) {
        let uri = request.uri
        guard let content else {
            answer(request, uri: uri, refusing: 404, HostError(.renderer, "nothing is loaded in this renderer", resource: uri), essential: false)
            return
        }
        guard ["GET", "HEAD"].contains(request.method) else {
            answer(request, uri: uri, refusing: 405, HostError(.renderer, "only GET and HEAD are served", resource: uri), essential: false)
            return
        }
        switch SchemeRoute.of(uri, bundle: content.bundle) {
        case .refused(let status, let message):
            answer(
                request, uri: uri, refusing: status, HostError(.renderer, "refused '\(uri.prefix(300))': \(message)", resource: uri),
                essential: false)
        case .file(let path):
            guard let file = content.manifest.file(at: path) else {
                answer(
                    request, uri: uri, refusing: 404,
                    HostError(.renderer, "the bundle has no file '\(path)'", resource: path, digest: content.bundle), essential: false)
                return
            }
            let essential = file.essential || path == content.manifest.entry
            let lease = content.lease
            let policy = file.role == .script ? configuration.remote.workerPolicy : configuration.remote.contentSecurityPolicy
            Task.detached(priority: .userInitiated) {
                let outcome: Result<SchemeResponse, CacheError> = Result { () throws(CacheError) in
                    SchemeResponse(mediaType: file.mediaType, body: try lease.data(at: path)).withPolicy(policy)
                }
                await self.answer(
                    request, uri: uri, with: outcome, essential: essential,
                    failure: { error in
                        HostError(
                            .renderer, "cannot serve '\(path)' from the cache: \(error.message)", resource: path,
                            digest: error.digest ?? file.digest, cacheError: error)
                    })
            }
        case .font(let font):
            let cache = content.cache
            let policy = configuration.remote.contentSecurityPolicy
            Task.detached(priority: .userInitiated) {
                let outcome: Result<SchemeResponse, CacheError> = Result { () throws(CacheError) in
                    let resolved = try cache.resolveFont(font)
                    return SchemeResponse(
                        mediaType: resolved.mediaType, headers: [(name: "Access-Control-Allow-Origin", value: "*")], body: resolved.bytes
                    ).withPolicy(policy)
                }
                await self.answer(
                    request, uri: uri, with: outcome, essential: true,
                    failure: { error in
                        HostError(
                            .renderer, "cannot resolve the font '\(font)': \(error.message)", resource: font.description,
                            digest: error.digest ?? font.digest, cacheError: error)
                    })
            }
        }
    }

    private func answer(
        _ request: SchemeRequest, uri: String, with outcome: Result<SchemeResponse, CacheError>, essential: Bool,
        failure: (CacheError) -> HostError
    ) {
        switch outcome {
        case .success(let response):
            request.respond(response)
            record(AnsweredRequest(record: ServedRequest(url: uri, status: 200, bytes: response.body.count), failure: nil, essential: essential))
        case .failure(let error):
            answer(request, uri: uri, refusing: SchemeResponse.status(for: error), failure(error), essential: essential)
        }
    }

    private func answer(_ request: SchemeRequest, uri: String, refusing status: Int, _ error: HostError, essential: Bool) {
        request.respond(SchemeResponse(status: status, message: error.message).withPolicy(configuration.remote.contentSecurityPolicy))
        record(
            AnsweredRequest(
                record: ServedRequest(url: uri, status: status, bytes: 0, error: error.message), failure: error, essential: essential))
    }

    private func record(_ answered: AnsweredRequest) {
        servedRequests.appendKeepingLast(Self.logLimit, answered.record)
        attempt?.requests.append(answered)
    }
}
