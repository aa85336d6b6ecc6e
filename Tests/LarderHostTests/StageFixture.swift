import Foundation
import LarderCache
import LarderFormat
import LarderTestSupport
@testable import LarderHost

/// What ``PresentationStage`` holds, without a host: two small bundles in a scratch cache, and
/// content on them with real leases (each piece its own lease, as each preparation takes one).
/// Removed when the test ends.
final class StageFixture {
    let root: String
    let cache: LarderCache
    /// Two bundles, complete in the cache.
    let bundles: [Digest]
    let clock = ManualClock()

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("larder-stage-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        cache = try LarderCache(at: root + "/cache")
        bundles = try ["one", "two"].map { [root, cache] name in
            let (archive, _) = try makeBundleArchive(files: ["index.html": Array("<p>\(name)</p>".utf8)], name: name)
            let path = root + "/\(name).tar.gz"
            try Data(archive).write(to: URL(fileURLWithPath: path))
            return try cache.install(archiveAt: path).bundle
        }
    }

    deinit {
        do { try FileManager.default.removeItem(atPath: root) } catch { print("could not remove \(root): \(error)") }
    }

    /// New content on bundle `index` with a lease of its own.
    func content(_ index: Int, revision: Int64 = 1, preloaded: Bool = true, loaded: Bool = false) throws -> PreparedContent {
        let bundle = bundles[index]
        let journey = PreparedJourney(
            journey: "onboarding", revision: revision, bundle: bundle, source: .network, renewed: clock.now, document: nil, stale: false,
            preloaded: preloaded)
        return PreparedContent(
            journey: journey, content: RenderContent(journey: "onboarding", revision: revision, lease: try cache.lease(bundle), cache: cache),
            loaded: loaded)
    }

    /// A session for `content` (a preview's has revision 0).
    func session(_ id: String, for content: PreparedContent, preview: Bool = false) -> PresentationSession {
        PresentationSession(
            id: id, journey: "onboarding", revision: preview ? 0 : content.journey.revision, bundle: content.journey.bundle, preview: preview)
    }
}
