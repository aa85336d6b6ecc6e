import LarderCache
import LarderRendering

extension WebKitRenderer {
    /// Answers a `larder:` or `larder-font:` request of this renderer's view
    /// (``RendererCore/schemeRequest(url:method:)``): a refusal at once; a bundle file or font
    /// read off the main loop (a first read hashes the object), answered from the main loop.
    func handle(_ request: SchemeRequest) {
        switch core.schemeRequest(url: request.uri, method: request.method) {
        case .now(let response):
            request.respond(response)
        case .read(let read):
            Task.detached(priority: .userInitiated) {
                let outcome = read.perform()
                await self.complete(request, read, outcome)
            }
        }
    }

    private func complete(_ request: SchemeRequest, _ read: SchemeRead, _ outcome: Result<SchemeResponse, CacheError>) {
        request.respond(core.complete(read, with: outcome))
    }
}
