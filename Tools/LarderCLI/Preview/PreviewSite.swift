import Foundation
import LarderFormat
import LarderHost
import LarderRendering
import LarderSystem

/// What `larder preview` serves: the shell page (the device frame, the bridge log, the
/// hide/show/reset and context controls), the flow as a device loads it, the bridge, and the
/// live-reload stream. Holds the current build and the bridge log.
final class PreviewSite: Sendable {
    struct State {
        var build: PreviewBuild
        /// Every bridge message the page sent and what the host's rules said, the last 1,000.
        var log: [JSONValue] = []
    }

    let source: String
    private let scratch: String
    private let state: Locked<State>

    /// Packs `source` once; ``rebuild()`` packs it again.
    init(source: String, scratch: String) {
        self.source = source
        self.scratch = scratch
        let first = PreviewBuild.make(source: source, scratch: scratch, version: 1)
        state = Locked(State(build: first))
        Self.report(first)
    }

    var build: PreviewBuild { state.withLock { $0.build } }

    /// Packs the folder again after a change; the page reloads.
    func rebuild() {
        let version = state.withLock { $0.build.version } + 1
        let next = PreviewBuild.make(source: source, scratch: scratch, version: version)
        state.withLock { $0.build = next }
        Self.report(next)
    }

    private static func report(_ build: PreviewBuild) {
        let time = DurationText.describe(build.duration)
        if build.errors.isEmpty {
            Console.out("preview: build \(build.version) packed in \(time)" + (build.warnings.isEmpty ? "" : ", \(build.warnings.count) warning(s)"))
        } else {
            Console.out("preview: build \(build.version) failed in \(time):\n" + build.errors.map { "  " + $0 }.joined(separator: "\n"))
        }
    }

    /// Answers one request.
    func handle(_ request: LoopbackServer.Request) -> LoopbackServer.Reply {
        switch (request.method, request.path) {
        case ("GET", "/"), ("HEAD", "/"):
            let build = build
            return Self.text(200, "text/html; charset=utf-8", PreviewPages.shell(entry: build.entry, version: build.version))
        case ("GET", "/__larder/bridge.js"): return Self.text(200, "text/javascript; charset=utf-8", PreviewPages.bridge)
        case ("POST", "/__larder/bridge"): return bridge(request.body)
        case ("GET", "/__larder/status"): return Self.json(status)
        case ("GET", "/__larder/log"): return Self.json(.array(state.withLock { $0.log }))
        case ("GET", "/__larder/events"): return events()
        case ("GET", let path) where path.hasPrefix("/__larder/font/sha256/"): return font(String(path.dropFirst("/__larder/font/sha256/".count)))
        case ("GET", let path) where path.hasPrefix("/flow/"), ("HEAD", let path) where path.hasPrefix("/flow/"):
            return flowFile(String(path.dropFirst("/flow/".count)))
        case ("GET", _), ("HEAD", _): return Self.text(404, "text/plain", "not found\n")
        default: return Self.text(405, "text/plain", "only GET, HEAD and the bridge's POST\n")
        }
    }

    /// The build's version, entry, errors and warnings.
    private var status: JSONValue {
        let build = build
        return .object([
            "version": .int(Int64(build.version)), "entry": build.entry.map(JSONValue.string) ?? .null,
            "errors": .array(build.errors.map(JSONValue.string)), "warnings": .array(build.warnings.map(JSONValue.string)),
            "packMilliseconds": .int(Int64(build.duration.components.seconds * 1000 + build.duration.components.attoseconds / 1_000_000_000_000_000)),
        ])
    }

    /// A message the page posted: read by the host's own rules (``BridgeMessage``), logged, and
    /// answered with the refusal the page's promise rejects with.
    private func bridge(_ body: [UInt8]) -> LoopbackServer.Reply {
        var entry: [String: JSONValue] = ["message": .string(String(decoding: body, as: UTF8.self))]
        var answer: [String: JSONValue] = [:]
        do {
            let message = try BridgeMessage(json: body)
            entry["message"] = .string(String(decoding: message.json, as: UTF8.self))
            Console.out("bridge: " + String(decoding: message.json, as: UTF8.self))
        } catch {
            entry["refusal"] = .string(error.message)
            answer["refusal"] = .string(error.message)
            Console.out("bridge: refused \(String(decoding: body.prefix(300), as: UTF8.self)): \(error.message)")
        }
        state.withLock { $0.log.appendKeepingLast(1000, .object(entry)) }
        return Self.json(.object(answer))
    }

    /// Server-sent events: the status now, then again at each new build; a comment every
    /// 15 s keeps the connection; the stream ends after an hour (the browser reconnects).
    private func events() -> LoopbackServer.Reply {
        let sent = Locked(0)
        let started = ContinuousClock.now
        return .events { [self] in
            var waited = Duration.zero
            while ContinuousClock.now - started < .seconds(3600) {
                let version = build.version
                if sent.withLock({ $0 }) != version {
                    sent.withLock { $0 = version }
                    return "data: " + status.jsonText + "\n\n"
                }
                if waited >= .seconds(15) { return ": still here\n\n" }
                Thread.sleep(forTimeInterval: 0.02)
                waited += .milliseconds(20)
            }
            return nil
        }
    }

    /// A file of the flow as a device gets it: the bundle's bytes with the device's
    /// Content-Security-Policy; documents with the preview's bridge, documents and stylesheets
    /// with `larder-font:` URLs pointing at the preview's font route.
    private func flowFile(_ encoded: String) -> LoopbackServer.Reply {
        let build = build
        guard let manifest = build.manifest else {
            return Self.text(503, "text/html; charset=utf-8", PreviewPages.errors(build.errors), policy: true)
        }
        // The device's rule for `larder:` paths (strict percent-decoding, NFC, a bundle path),
        // so the preview refuses what a device would.
        let path: String
        do throws(FormatError) { path = try URLPath.bundlePath(decoding: encoded[...]) } catch {
            return Self.text(400, "text/plain", "\(error.description)\n", policy: true)
        }
        guard let file = manifest.file(at: path), var bytes = build.files[path] else {
            return Self.text(404, "text/plain", "the bundle has no file '\(path)'\n", policy: true)
        }
        if file.role == .document || file.role == .style {
            var text = String(decoding: bytes, as: UTF8.self)
            text = text.replacingOccurrences(of: FontURL.prefix, with: "/__larder/font/sha256/")
            if file.role == .document { text = PreviewPages.injectBridge(into: text) }
            bytes = Array(text.utf8)
        }
        return .answer(status: 200, headers: [("Content-Type", file.mediaType), ("Cache-Control", "no-store"), ("Content-Security-Policy", Self.policy)], body: bytes)
    }

    /// A font by digest, as the device's font scheme resolves `larder-font://sha256/<hex>`.
    private func font(_ hex: String) -> LoopbackServer.Reply {
        let build = build
        guard let file = build.manifest?.files.first(where: { $0.role == .font && $0.digest.hex == hex }), let bytes = build.files[file.path] else {
            return Self.text(404, "text/plain", "no font of digest \(hex.prefix(64)) in the bundle\n")
        }
        return .answer(
            status: 200, headers: [("Content-Type", file.mediaType), ("Access-Control-Allow-Origin", "*"), ("Cache-Control", "no-store")], body: bytes)
    }

    /// The device's Content-Security-Policy (``RemotePolicy/contentSecurityPolicy``, nothing
    /// remote allowed), with the bundle's schemes as the preview's own origin.
    static let policy = RemotePolicy.blockAll.contentSecurityPolicy
        .replacingOccurrences(of: "\(SchemeRoute.bundleScheme): \(SchemeRoute.fontScheme):", with: "'self'")
        .replacingOccurrences(of: "\(SchemeRoute.bundleScheme):", with: "'self'")

    private static func text(_ status: Int, _ type: String, _ text: String, policy: Bool = false) -> LoopbackServer.Reply {
        var headers = [("Content-Type", type), ("Cache-Control", "no-store")]
        if policy { headers.append(("Content-Security-Policy", Self.policy)) }
        return .answer(status: status, headers: headers, body: Array(text.utf8))
    }

    private static func json(_ value: JSONValue) -> LoopbackServer.Reply {
        .answer(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: value.canonicalBytes)
    }
}
