import Foundation
import LarderCache
import LarderFormat
import Synchronization

/// A renderer without a screen, for Linux, tests and the CLI, that does a web view's loading
/// work for real: it reads the entry document and every essential file through the lease
/// (verified bytes), resolves every `larder-font://` URL of the entry document and the
/// essential HTML and CSS files through the cache, and checks that every relative `src=` and
/// `href=` of the entry document names a file of the bundle. Content talks back through
/// ``receive(_:)``.
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
        var loads = 0
        var resets = 0
        var unloads = 0
    }

    /// What this renderer advertises.
    public let capabilities: Set<Manifest.Capability>
    private let storage = Mutex(Storage())

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
    ///   ``CacheError/Code/corruptObject``); ``HostError/Code/disposed`` after ``stop()``.
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
            storage.resets += 1
        }
    }

    /// Drops loaded content; the renderer stays started. Does nothing after ``stop()``.
    public func unload() async {
        storage.withLock { storage in
            guard storage.state != .stopped, storage.content != nil else { return }
            storage.content = nil
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

    /// A message from the loaded content: parsed and passed to the bridge; a `navigate` also
    /// moves the current screen.
    /// - Parameter json: the message bytes, as in ``BridgeMessage/init(json:)``.
    /// - Throws: ``HostError/Code/malformedDocument`` for a malformed message,
    ///   ``HostError/Code/renderer`` while nothing is loaded, ``HostError/Code/disposed`` after
    ///   ``stop()``.
    public func receive(_ json: [UInt8]) throws(HostError) {
        try storage.withLock { (storage) throws(HostError) in
            try Self.requireRunning(storage)
            guard case .loaded = storage.state else { throw HostError(.renderer, "a bridge message arrived while nothing is loaded") }
        }
        let message = try BridgeMessage(json: json)
        let bridge = try storage.withLock { (storage) throws(HostError) -> RendererBridge? in
            try Self.requireRunning(storage)
            guard case .loaded(let visible, _) = storage.state else {
                throw HostError(.renderer, "a bridge message arrived while nothing is loaded")
            }
            if case .navigate(let screen) = message { storage.state = .loaded(visible: visible, screen: screen) }
            return storage.bridge
        }
        bridge?.send(message)
    }

    private static func requireRunning(_ storage: Storage) throws(HostError) {
        if storage.state == .stopped { throw HostError(.disposed, "the renderer was stopped") }
    }
}

extension HeadlessRenderer {
    /// The loading work: every essential resource read through the lease, every font URL
    /// resolved, every relative reference of the entry document checked.
    fileprivate static func resolve(_ content: RenderContent) throws(HostError) -> LoadReport {
        let manifest = content.manifest
        // The entry first (a valid manifest lists it; the lease reports it if not), then the rest.
        let paths = [manifest.entry] + manifest.files.filter { $0.essential && $0.path != manifest.entry }.map(\.path)
        var bytes: Int64 = 0
        var fontURLs: [String] = []
        var seenFonts: Set<String> = []
        var entryBytes: [UInt8] = []
        for path in paths {
            let file = manifest.file(at: path)
            let data: [UInt8]
            do { data = try content.lease.data(at: path) } catch {
                throw HostError(
                    .renderer, "cannot read '\(path)' from the cache: \(error.message)", resource: path,
                    digest: error.digest ?? file?.digest, cacheError: error)
            }
            bytes += Int64(data.count)
            if path == manifest.entry { entryBytes = data }
            guard path == manifest.entry || file?.role == .document || file?.role == .style else { continue }
            for url in FontScanner.urls(in: data) where seenFonts.insert(url).inserted { fontURLs.append(url) }
        }
        for reference in AttributeScanner.references(in: entryBytes) {
            switch LocalReference(reference, from: manifest.entry) {
            case .ignored:
                continue
            case .local(let path) where manifest.file(at: path) != nil:
                continue
            case .local(let path):
                throw HostError(
                    .renderer, "the entry document refers to '\(reference.prefix(200))', that is '\(path)', which is not in the bundle",
                    resource: path, digest: content.bundle)
            case .escaping:
                throw HostError(
                    .renderer, "the entry document refers to '\(reference.prefix(200))', which climbs above the bundle root",
                    resource: reference, digest: content.bundle)
            }
        }
        for url in fontURLs {
            do { _ = try content.cache.resolveFont(url) } catch {
                throw HostError(
                    .renderer, "cannot resolve the font '\(url.prefix(200))': \(error.message)", resource: url,
                    digest: error.digest, cacheError: error)
            }
        }
        return LoadReport(resources: paths.count, fonts: fontURLs.count, bytes: bytes, entry: manifest.entry)
    }
}

/// Finds `larder-font://…` URLs in HTML or CSS bytes: each runs from the scheme to the first
/// quote, parenthesis, whitespace, `;`, `,`, `<`, `>` or `\`.
private enum FontScanner {
    static func urls(in bytes: [UInt8]) -> [String] {
        let prefix = Array("larder-font://".utf8)
        let terminators = Set("\"'() \t\r\n\u{0C};,<>\\".utf8)
        var found: [String] = []
        var index = 0
        while index + prefix.count <= bytes.count {
            guard bytes[index] == prefix[0], bytes[index..<index + prefix.count].elementsEqual(prefix) else {
                index += 1
                continue
            }
            var end = index + prefix.count
            while end < bytes.count, !terminators.contains(bytes[end]) { end += 1 }
            found.append(String(decoding: bytes[index..<end], as: UTF8.self))
            index = end
        }
        return found
    }
}

/// The values of `src=` and `href=` attributes in HTML, with `&amp;`-style character references
/// decoded. Comments, declarations and the raw text of `<script>`, `<style>`, `<textarea>` and
/// `<title>` are skipped.
private struct AttributeScanner {
    private let bytes: [UInt8]
    private var index = 0
    private var found: [String] = []

    static func references(in bytes: [UInt8]) -> [String] {
        var scanner = AttributeScanner(bytes: bytes)
        scanner.run()
        return scanner.found
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
    private static func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }

    private mutating func run() {
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count else { index += 1; continue }
            let next = bytes[index + 1]
            if starts(with: "<!--", at: index) {
                index = find("-->", from: index + 4).map { $0 + 3 } ?? bytes.count
            } else if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") || next == UInt8(ascii: "/") {
                index = find(">", from: index + 2).map { $0 + 1 } ?? bytes.count
            } else if (0x61...0x7A).contains(Self.lower(next)) {
                readTag()
            } else {
                index += 1
            }
        }
    }

    private func starts(with text: String, at position: Int) -> Bool {
        let pattern = Array(text.utf8)
        guard position + pattern.count <= bytes.count else { return false }
        return pattern.indices.allSatisfy { Self.lower(bytes[position + $0]) == pattern[$0] }
    }

    private func find(_ text: String, from start: Int) -> Int? {
        var position = start
        while position < bytes.count {
            if starts(with: text, at: position) { return position }
            position += 1
        }
        return nil
    }

    private mutating func readTag() {
        index += 1
        let nameStart = index
        while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "/") {
            index += 1
        }
        let name = String(decoding: bytes[nameStart..<index].map(Self.lower), as: UTF8.self)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ">") { index += 1; break }
            if Self.isSpace(byte) || byte == UInt8(ascii: "/") { index += 1; continue }
            let (attribute, value) = readAttribute()
            if attribute == "src" || attribute == "href", let value { found.append(value) }
        }
        if ["script", "style", "textarea", "title"].contains(name) {
            var position = index
            while let close = find("</" + name, from: position) {
                let after = close + 2 + name.utf8.count
                if after >= bytes.count || Self.isSpace(bytes[after]) || bytes[after] == UInt8(ascii: ">") || bytes[after] == UInt8(ascii: "/") {
                    index = find(">", from: after).map { $0 + 1 } ?? bytes.count
                    return
                }
                position = close + 2
            }
            index = bytes.count
        }
    }

    /// Reads `name`, `name=value`, `name="value"` or `name='value'`.
    private mutating func readAttribute() -> (name: String, value: String?) {
        let nameStart = index
        while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ">"),
            !(bytes[index] == UInt8(ascii: "/") && index > nameStart)
        {
            index += 1
        }
        if index == nameStart { index += 1 }
        let name = String(decoding: bytes[nameStart..<index].map(Self.lower), as: UTF8.self)
        var lookahead = index
        while lookahead < bytes.count, Self.isSpace(bytes[lookahead]) { lookahead += 1 }
        guard lookahead < bytes.count, bytes[lookahead] == UInt8(ascii: "=") else { return (name, nil) }
        index = lookahead + 1
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        let range: Range<Int>
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
            let quote = bytes[index]
            let start = index + 1
            var end = start
            while end < bytes.count, bytes[end] != quote { end += 1 }
            range = start..<end
            index = min(bytes.count, end + 1)
        } else {
            let start = index
            while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
            range = start..<index
        }
        return (name, Self.decodeEntities(String(decoding: bytes[range], as: UTF8.self)))
    }

    private static let entities: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]

    /// Decodes the named references above and numeric ones (`&#47;`, `&#x2F;`).
    private static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let tail = rest[rest.index(after: amp)...]
            guard let semicolon = tail.prefix(10).firstIndex(of: ";") else {
                out += "&"
                rest = tail
                continue
            }
            let name = tail[..<semicolon]
            let scalar: Unicode.Scalar? =
                name.hasPrefix("#x") || name.hasPrefix("#X")
                ? UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                : name.hasPrefix("#") ? UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init) : nil
            if let replacement = scalar.map({ String(Character($0)) }) ?? entities[String(name)] {
                out += replacement
                rest = tail[tail.index(after: semicolon)...]
            } else {
                out += "&"
                rest = tail
            }
        }
        return out + rest
    }
}

/// Where a URL in the entry document points, resolved the way a browser resolves it against the
/// document: relative to its folder, query and fragment dropped, percent-escapes decoded, `.` and
/// `..` applied, NFC-normalised like manifest paths.
private enum LocalReference: Equatable {
    /// A URL with a scheme, a network path (`//…`), a fragment only (`#…`) or nothing.
    case ignored
    /// A bundle path.
    case local(String)
    /// A relative path that climbs above the bundle root.
    case escaping

    init(_ url: String, from document: String) {
        let trimmed = url.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), !trimmed.hasPrefix("//"), !Self.hasScheme(trimmed) else {
            self = .ignored
            return
        }
        var path = Substring(trimmed)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        guard !path.isEmpty else {
            self = .ignored  // "?x" is the document itself
            return
        }
        let decoded = String(path).removingPercentEncoding ?? String(path)
        var segments: [Substring] = decoded.hasPrefix("/") ? [] : document.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let parts = decoded.split(separator: "/", omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            let last = index == parts.count - 1
            switch part {
            case "", ".":
                if last { segments.append("index.html") }
            case "..":
                guard !segments.isEmpty else {
                    self = .escaping
                    return
                }
                segments.removeLast()
                if last { segments.append("index.html") }
            default:
                segments.append(part)
            }
        }
        self = .local(segments.joined(separator: "/").precomposedStringWithCanonicalMapping)
    }

    /// Whether the URL starts with `scheme:` (a letter, then letters, digits, `+`, `-`, `.`).
    private static func hasScheme(_ url: String) -> Bool {
        guard let colon = url.firstIndex(of: ":") else { return false }
        let candidate = url[..<colon]
        guard let first = candidate.first, first.isASCII, first.isLetter else { return false }
        return candidate.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }
}
