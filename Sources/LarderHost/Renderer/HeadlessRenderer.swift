import Foundation
import LarderCache
import LarderFormat
import LarderSystem

/// A renderer without a screen, for Linux, tests and the CLI, that does a web view's loading
/// work for real: it reads the entry document and every essential file through the lease
/// (verified bytes), resolves every `larder-font://` URL of the entry document and the
/// essential HTML and CSS files that names an essential font (a `unicode-range` subset the
/// first screen's text does not use is left, as a web view leaves it unloaded) through the
/// cache, and checks that every relative reference of
/// those files (`src`, `srcset`, `href`, `url()`, `@import`, as the packer scans them) names a
/// file of the bundle. Content talks back through ``receive(_:)``.
///
/// Thread-safe: its state sits behind a mutex and no call blocks on another.
public final class HeadlessRenderer: JourneyRenderer {
    /// Where the renderer is in its life.
    public enum State: Sendable, Equatable {
        /// Not started yet.
        case idle
        /// Started, with nothing loaded.
        case started
        /// Content is loaded; `screen` is the current screen (the entry document after a load
        /// or reset, then what `navigate` messages name).
        case loaded(visible: Bool, screen: String)
        /// Stopped for good.
        case stopped
    }

    /// What the last successful ``load(_:visible:)`` read.
    public struct LoadReport: Sendable, Equatable {
        /// Bundle files read and verified: the entry document and every essential file.
        public var resources: Int
        /// Distinct `larder-font://` URLs resolved through the cache.
        public var fonts: Int
        /// The bytes of those bundle files (fonts resolved by URL are not counted again).
        public var bytes: Int64
        /// The entry document's bundle path.
        public var entry: String

        /// Creates a report.
        /// - Parameters:
        ///   - resources: bundle files read.
        ///   - fonts: font URLs resolved.
        ///   - bytes: bytes of the bundle files read.
        ///   - entry: the entry document.
        public init(resources: Int, fonts: Int, bytes: Int64, entry: String) {
            self.resources = resources
            self.fonts = fonts
            self.bytes = bytes
            self.entry = entry
        }
    }

    private struct Storage {
        var state: State = .idle
        var bridge: RendererBridge?
        var content: RenderContent?
        var lastLoad: LoadReport?
        var shownSessions: [String] = []
        var context: [String: JSONValue] = [:]
        var loads = 0
        var resets = 0
        var unloads = 0
    }

    /// What this renderer advertises.
    public let capabilities: Set<Manifest.Capability>
    /// The renderer protocol it implements: 1.
    public nonisolated var protocolVersion: Int { 1 }
    private let storage = Locked(Storage())

    /// Creates a renderer.
    /// - Parameter capabilities: what it advertises; the default gets prepared presentation,
    ///   an empty set direct presentation.
    public init(capabilities: Set<Manifest.Capability> = [.prepare, .visibility]) {
        self.capabilities = capabilities
    }

    /// Where the renderer is in its life.
    public var state: State { storage.withLock { $0.state } }
    /// The ids of the sessions shown, in order.
    public var shownSessions: [String] { storage.withLock { $0.shownSessions } }
    /// What the content reads as `window.larder.context` now, as JSON values (a web
    /// renderer's contract): the loaded content's (``RenderContent/contextValues``), then the
    /// shown session's (``PresentationSession/contextValues``); empty again after a reset or an
    /// unload.
    public var contextValues: [String: JSONValue] { storage.withLock { $0.context } }
    /// ``contextValues`` as strings (any other value as its canonical JSON text).
    public var context: [String: String] { contextValues.stringValues }
    /// The report of the last successful load, kept across ``unload()``.
    public var lastLoad: LoadReport? { storage.withLock { $0.lastLoad } }
    /// Successful loads.
    public var loads: Int { storage.withLock { $0.loads } }
    /// Resets of loaded content.
    public var resets: Int { storage.withLock { $0.resets } }
    /// Unloads that dropped content.
    public var unloads: Int { storage.withLock { $0.unloads } }

    /// Keeps the bridge; starting again replaces it and keeps loaded content.
    /// - Throws: ``HostError/Code/disposed`` after ``stop()``.
    public func start(bridge: RendererBridge) async throws(HostError) {
        try storage.withLock { (storage) throws(HostError) in
            try Self.requireRunning(storage)
            storage.bridge = bridge
            if storage.state == .idle { storage.state = .started }
        }
    }

    /// Reads and verifies the first screen's essential resources and resolves its fonts; on
    /// success the content is loaded and shows its entry document, hidden unless `visible`.
    ///
    /// A failed load leaves nothing loaded (content loaded before is dropped).
    /// - Parameters:
    ///   - content: the leased bundle to load.
    ///   - visible: whether the content is visible at once (direct presentation).
    /// - Throws: ``HostError/Code/renderer`` whose ``HostError/resource`` names the bundle path
    ///   or font URL that failed, with the cache's error (a corrupt object gives
    ///   `CacheError.Code.corruptObject`); ``HostError/Code/disposed`` after ``stop()``.
    public func load(_ content: RenderContent, visible: Bool) async throws(HostError) {
        try storage.withLock { (storage) throws(HostError) in
            try Self.requireRunning(storage)
            guard storage.state != .idle else { throw HostError(.renderer, "load before start: start the renderer first") }
        }
        let result = Result { () throws(HostError) in try Self.resolve(content) }
        try storage.withLock { (storage) throws(HostError) in
            try Self.requireRunning(storage)
            switch result {
            case .success(let report):
                storage.content = content
                storage.context = content.contextValues
                storage.state = .loaded(visible: visible, screen: content.manifest.entry)
                storage.lastLoad = report
                storage.loads += 1
            case .failure:
                storage.content = nil
                storage.state = .started
            }
        }
        _ = try result.get()
    }

    /// Makes the loaded content visible and records the session.
    /// - Parameter session: the presentation; its id is appended to ``shownSessions``.
    /// - Throws: ``HostError/Code/renderer`` ("nothing loaded") without loaded content;
    ///   ``HostError/Code/disposed`` after ``stop()``.
    public func show(_ session: PresentationSession) async throws(HostError) {
        try storage.withLock { (storage) throws(HostError) in
            try Self.requireRunning(storage)
            guard case .loaded(_, let screen) = storage.state else {
                throw HostError(.renderer, "nothing loaded: load content before showing it", digest: session.bundle)
            }
            storage.state = .loaded(visible: true, screen: screen)
            storage.shownSessions.append(session.id)
            storage.context = session.contextValues
        }
    }

    /// Hides the content and goes back to its entry document, keeping it loaded. With nothing
    /// loaded there is nothing to reset and nothing changes.
    /// - Throws: ``HostError/Code/disposed`` after ``stop()``.
    public func reset() async throws(HostError) {
        try storage.withLock { (storage) throws(HostError) in
            try Self.requireRunning(storage)
            guard let content = storage.content else { return }
            storage.state = .loaded(visible: false, screen: content.manifest.entry)
            storage.context = [:]
            storage.resets += 1
        }
    }

    /// Drops loaded content; the renderer stays started. Does nothing after ``stop()``.
    public func unload() async {
        storage.withLock { storage in
            guard storage.state != .stopped, storage.content != nil else { return }
            storage.content = nil
            storage.context = [:]
            storage.state = .started
            storage.unloads += 1
        }
    }

    /// Stops for good: content and bridge are dropped; every later call throws
    /// ``HostError/Code/disposed``.
    public func stop() async {
        storage.withLock { storage in
            storage.state = .stopped
            storage.content = nil
            storage.bridge = nil
        }
    }

    /// A message from the loaded content: held to the bridge's bounds (``BridgeLimits``),
    /// parsed and passed on; a `navigate` also moves the current screen.
    /// - Parameter json: the message bytes, as in ``BridgeMessage/init(json:)``.
    /// - Throws: ``HostError/Code/limitExceeded`` for a message over the size or rate limit,
    ///   ``HostError/Code/malformedDocument`` for a malformed message (both counted by the
    ///   bridge), ``HostError/Code/renderer`` while nothing is loaded,
    ///   ``HostError/Code/disposed`` after ``stop()``.
    public func receive(_ json: [UInt8]) throws(HostError) {
        let bridge = try storage.withLock { (storage) throws(HostError) -> RendererBridge? in
            try Self.requireRunning(storage)
            guard case .loaded = storage.state else { throw HostError(.renderer, "a bridge message arrived while nothing is loaded") }
            return storage.bridge
        }
        guard let bridge else { throw HostError(.renderer, "a bridge message arrived before the renderer was started") }
        let message = try bridge.receive(json)
        guard case .navigate(let screen) = message else { return }
        storage.withLock { storage in
            if case .loaded(let visible, _) = storage.state { storage.state = .loaded(visible: visible, screen: screen) }
        }
    }

    private static func requireRunning(_ storage: Storage) throws(HostError) {
        if storage.state == .stopped { throw HostError(.disposed, "the renderer was stopped") }
    }
}

extension HeadlessRenderer {
    /// The loading work: every essential resource read through the lease, every font URL
    /// resolved, every relative reference of the essential documents and stylesheets checked
    /// against the manifest (with the packer's scanners and resolver).
    fileprivate static func resolve(_ content: RenderContent) throws(HostError) -> LoadReport {
        let manifest = content.manifest
        // The entry first (a valid manifest lists it; the lease reports it if not), then the rest.
        let paths = [manifest.entry] + manifest.files.filter { $0.essential && $0.path != manifest.entry }.map(\.path)
        var bytes: Int64 = 0
        var fontURLs: [FontURL] = []
        // The fonts a stylesheet names that the manifest does not mark essential (the
        // `unicode-range` subsets the first screen's text does not use) are not loaded, as a
        // web view leaves them `unloaded`: the two renderers need the same fonts.
        var seenFonts = Self.fontsNotNeeded(by: manifest)
        for path in paths {
            let file = manifest.file(at: path)
            let data: [UInt8]
            do { data = try content.lease.data(at: path) } catch {
                throw HostError(
                    .renderer, "cannot read '\(path)' from the cache: \(error.message)", resource: path,
                    digest: error.digest ?? file?.digest, cacheError: error)
            }
            bytes += Int64(data.count)
            let isDocument = path == manifest.entry || file?.role == .document
            guard isDocument || file?.role == .style else { continue }
            let references = data.withUnsafeBufferPointer { isDocument ? HTMLScanner.scan($0) : CSSScanner.scan($0) }
            for reference in references where FontURL.isOfScheme(reference.url) {
                let font: FontURL
                do { font = try FontURL(parsing: reference.url) } catch {
                    throw HostError(
                        .renderer, "cannot resolve the font '\(reference.url.prefix(200))': \(error.message)", resource: reference.url,
                        digest: content.bundle)
                }
                if seenFonts.insert(font).inserted { fontURLs.append(font) }
            }
            try check(references, of: path, in: content)
        }
        for font in fontURLs {
            do { _ = try content.cache.resolveFont(font) } catch {
                throw HostError(
                    .renderer, "cannot resolve the font '\(font)': \(error.message)", resource: font.description,
                    digest: error.digest, cacheError: error)
            }
        }
        return LoadReport(resources: paths.count, fonts: fontURLs.count, bytes: bytes, entry: manifest.entry)
    }

    /// The `larder-font:` URLs of the bundle's fonts that no essential file shares.
    static func fontsNotNeeded(by manifest: Manifest) -> Set<FontURL> {
        let essential = Set(manifest.files.filter(\.essential).map(\.digest))
        return Set(manifest.files.filter { $0.role == .font && !essential.contains($0.digest) }.map { FontURL(digest: $0.digest) })
    }

    /// Throws for the first reference of the file at `path` that names a file the bundle lacks
    /// or climbs above its root; remote URLs and other schemes are left to the web view.
    private static func check(_ references: [Reference], of path: String, in content: RenderContent) throws(HostError) {
        for reference in references {
            switch ReferenceResolver.resolve(reference.url, from: path) {
            case .ignored, .remote:
                continue
            case .local(let target) where content.manifest.file(at: target) != nil:
                continue
            case .local(let target):
                throw HostError(
                    .renderer, "'\(path)' refers to '\(reference.url.prefix(200))', that is '\(target)', which is not in the bundle",
                    resource: target, digest: content.bundle)
            case .escaping:
                throw HostError(
                    .renderer, "'\(path)' refers to '\(reference.url.prefix(200))', which climbs above the bundle root",
                    resource: reference.url, digest: content.bundle)
            case .malformed(let reason):
                throw HostError(
                    .renderer, "'\(path)' refers to '\(reference.url.prefix(200))', which is malformed: \(reason)",
                    resource: reference.url, digest: content.bundle)
            }
        }
    }
}
