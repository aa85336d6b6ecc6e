import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderSystem

/// A scratch folder with a cache for renderer tests (headless and web engine), removed when
/// the test ends.
open class RendererFixture: @unchecked Sendable {
    public let root: String
    public let cache: LarderCache

    public init(prefix: String = "larder-renderer") throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        cache = try LarderCache(at: root + "/cache")
    }

    deinit {
        do { try FileManager.default.removeItem(atPath: root) } catch { print("could not remove \(root): \(error)") }
    }

    /// Packs a folder of SampleBundles with the packer and installs the archive.
    public func installSample(_ name: String) throws -> (bundle: Digest, manifest: Manifest) {
        let report = try Packer.pack(source: sampleBundles + "/" + name, into: root + "/packed")
        let bundle = try cache.install(archiveAt: report.archivePath).bundle
        return (bundle, try cache.manifest(bundle))
    }

    /// Installs a bundle made of exactly these files (all essential, entry `index.html`), which
    /// the packer would refuse.
    public func installFiles(_ files: [String: String]) throws -> (bundle: Digest, manifest: Manifest) {
        let (archive, manifest) = try makeBundleArchive(files: files.mapValues { Array($0.utf8) })
        let path = root + "/" + UUID().uuidString + ".tar.gz"
        try Data(archive).write(to: URL(fileURLWithPath: path))
        return (try cache.install(archiveAt: path).bundle, manifest)
    }

    /// What a renderer is given to show `bundle` (a new lease).
    public func content(_ bundle: Digest) throws -> RenderContent {
        RenderContent(journey: "journey_123", revision: 7, lease: try cache.lease(bundle), cache: cache)
    }

    /// The stored object file of `digest` (the cache's `objects/ab/cdef…`).
    public func objectPath(_ digest: Digest) -> String {
        root + "/cache/objects/" + digest.hex.prefix(2) + "/" + digest.hex.dropFirst(2)
    }
}

/// Collects what a renderer passes to the bridge: its content's messages and its own events.
public final class Inbox: Sendable {
    private let messages = Locked<[BridgeMessage]>([])
    private let reported = Locked<[RendererEvent]>([])
    public init() {}
    public var bridge: RendererBridge {
        RendererBridge({ message in self.messages.withLock { $0.append(message) } }, events: { event in self.reported.withLock { $0.append(event) } })
    }
    public var received: [BridgeMessage] { messages.withLock { $0 } }
    public var events: [RendererEvent] { reported.withLock { $0 } }
}

/// Runs `body` and returns the HostError it throws (nil if it does not throw one).
public func hostError(_ body: () async throws(HostError) -> Void) async -> HostError? {
    do { try await body() } catch { return error }
    return nil
}

/// A presentation session of the fixtures' journey.
public func session(_ id: String, _ bundle: Digest) -> PresentationSession {
    PresentationSession(id: id, journey: "journey_123", revision: 7, bundle: bundle)
}
