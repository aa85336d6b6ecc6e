import LarderCLI
import LarderCache
import LarderFormat
import LarderHost
import LarderWebKit

/// The web engine in process: WebKitGTK through ``WebKitRenderer``, for `larder render` and
/// `larder journey --renderer webkit`, which `larder` hands to this program.
struct WebKitEngine: WebEngineRunner {
    func takeOver() throws(HostError) {}

    func display() throws(HostError) -> String? {
        try VirtualDisplay.startIfNeeded()?.name
    }

    func makeRenderer(viewport: Viewport) throws(HostError) -> any JourneyRenderer {
        WebKitRenderer(configuration: .init(viewport: viewport))
    }

    func render(_ bundle: Digest, cache: LarderCache, viewport: Viewport) async -> Result<RenderedScreen, HostError> {
        let renderer = WebKitRenderer(configuration: .init(viewport: viewport))
        let result: Result<RenderedScreen, HostError>
        do throws(HostError) {
            let lease: BundleLease
            do throws(CacheError) { lease = try cache.lease(bundle) } catch {
                throw HostError(.cache, "the cache failed: \(error.message)", digest: error.digest, cacheError: error)
            }
            defer { lease.release() }
            try await renderer.start(bridge: RendererBridge { _ in })
            try await renderer.load(RenderContent(journey: lease.manifest.name, revision: 0, lease: lease, cache: cache), visible: false)
            guard let report = await renderer.lastLoad else { throw HostError(.renderer, "the renderer kept no report") }
            let png = try await renderer.screenshot()
            result = .success(RenderedScreen(name: lease.manifest.name, png: png, rows: Self.rows(report), json: Self.json(report)))
        } catch {
            result = .failure(error)
        }
        await renderer.stop()
        return result
    }

    func screenshot(_ renderer: any JourneyRenderer) async throws(HostError) -> [UInt8] {
        guard let engine = renderer as? WebKitRenderer else { throw HostError(.renderer, "screenshots need --renderer webkit") }
        guard case .loaded = await engine.state else {
            throw HostError(.renderer, "nothing is loaded to capture: a journey without the 'prepare' capability loads only when presented; use 'present'")
        }
        return try await engine.screenshot()
    }

    func lastLoad(_ renderer: any JourneyRenderer) async -> LoadSummary? {
        guard let engine = renderer as? WebKitRenderer, let report = await engine.lastLoad else { return nil }
        return LoadSummary(
            resources: report.requests.count, fonts: report.fonts.count, bytes: report.bytes, entry: report.document,
            rows: Self.rows(report), json: Self.json(report))
    }
}
