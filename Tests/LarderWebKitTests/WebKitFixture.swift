import Foundation
@testable import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderTestSupport
import LarderWebKit
import Synchronization
import Testing

/// Xvfb for the whole test process when no display is set; it stops when the process ends.
let testDisplay: Result<VirtualDisplay?, HostError> = Result { () throws(HostError) in try VirtualDisplay.startIfNeeded() }

/// A scratch folder with a cache and the renderers a test started (stopped at the end).
final class WebKitFixture: @unchecked Sendable {
    let root: String
    let cache: LarderCache

    init() throws {
        _ = try testDisplay.get()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("larder-webkit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        cache = try LarderCache(at: root + "/cache")
    }

    deinit {
        do { try FileManager.default.removeItem(atPath: root) } catch { print("could not remove \(root): \(error)") }
    }

    /// Packs a folder of SampleBundles with the packer and installs the archive.
    func installSample(_ name: String) throws -> (bundle: Digest, manifest: Manifest) {
        let report = try Packer.pack(source: sampleBundles + "/" + name, into: root + "/packed")
        let bundle = try cache.install(archiveAt: report.archivePath).bundle
        return (bundle, try cache.manifest(bundle))
    }

    /// Installs a bundle of exactly these files (all essential, entry `index.html`).
    func installFiles(_ files: [String: String]) throws -> (bundle: Digest, manifest: Manifest) {
        let (archive, manifest) = try makeBundleArchive(files: files.mapValues { Array($0.utf8) })
        let path = root + "/" + UUID().uuidString + ".tar.gz"
        try Data(archive).write(to: URL(fileURLWithPath: path))
        return (try cache.install(archiveAt: path).bundle, manifest)
    }

    func content(_ bundle: Digest) throws -> RenderContent {
        RenderContent(journey: "journey_123", revision: 7, lease: try cache.lease(bundle), cache: cache)
    }

    /// A started renderer with an inbox for its bridge.
    func startedRenderer(_ configuration: WebKitRenderer.Configuration = .init()) async throws -> (WebKitRenderer, Inbox) {
        let inbox = Inbox()
        let renderer = WebKitRenderer(configuration: configuration)
        try await renderer.start(bridge: inbox.bridge)
        return (renderer, inbox)
    }

    /// The stored object file of `digest`.
    func objectPath(_ digest: Digest) -> String { CacheLayout(root: root + "/cache").objectPath(digest) }
}

/// Collects what the renderer passes to the bridge.
final class Inbox: Sendable {
    let messages = Mutex<[BridgeMessage]>([])
    var bridge: RendererBridge { RendererBridge { message in self.messages.withLock { $0.append(message) } } }
    var received: [BridgeMessage] { messages.withLock { $0 } }
}

/// Runs `body` and returns the HostError it throws (nil if it does not throw one).
func hostError(_ body: () async throws(HostError) -> Void) async -> HostError? {
    do { try await body() } catch { return error }
    return nil
}

/// Polls `condition` every 20 ms until it holds or `timeout` passed.
/// - Returns: whether it held.
func within(_ timeout: Duration = .seconds(5), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

func session(_ id: String, _ bundle: Digest) -> PresentationSession {
    PresentationSession(id: id, journey: "journey_123", revision: 7, bundle: bundle)
}
