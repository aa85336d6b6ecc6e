import LarderHost
import LarderWebKit

/// The renderer a `larder journey` command runs the host with: `--renderer headless` (the
/// default) or `--renderer webkit`, with `--screenshot` and `--viewport` for the latter.
struct RendererChoice {
    /// `headless` or `webkit`.
    var name: String
    var screenshot: String?
    var viewport: Viewport

    init(_ parsed: ParsedArguments, spec: CommandSpec) throws(UsageError) {
        name = parsed.value("--renderer") ?? "headless"
        guard name == "headless" || name == "webkit" else {
            throw UsageError(message: "Invalid '--renderer <name>': '\(name)' (headless or webkit)", command: spec)
        }
        screenshot = parsed.value("--screenshot")
        viewport = try WebEngineSupport.viewport(parsed, spec: spec)
        if name == "headless" {
            if screenshot != nil { throw UsageError(message: "'--screenshot' needs '--renderer webkit'", command: spec) }
            if parsed.value("--viewport") != nil { throw UsageError(message: "'--viewport' needs '--renderer webkit'", command: spec) }
        }
        if screenshot?.isEmpty == true { throw UsageError(message: "Missing value for '--screenshot <png>'", command: spec) }
    }

    /// A new renderer; the web engine first gets a display (Xvfb when none is set).
    /// - Throws: ``HostError/Code/renderer`` when no display can be started.
    func makeRenderer() throws(HostError) -> any JourneyRenderer {
        guard name == "webkit" else { return HeadlessRenderer() }
        _ = try WebEngineSupport.display()
        return WebKitRenderer(configuration: .init(viewport: viewport))
    }

    /// A PNG of what the web engine shows (prepared hidden or presented).
    /// - Throws: ``HostError/Code/renderer`` when nothing is loaded (a journey presented
    ///   directly loads only when visible: use `present`).
    static func screenshot(_ renderer: any JourneyRenderer) async throws(HostError) -> [UInt8] {
        guard let engine = renderer as? WebKitRenderer else { throw HostError(.renderer, "screenshots need --renderer webkit") }
        guard case .loaded = await engine.state else {
            throw HostError(.renderer, "nothing is loaded to capture: a journey without the 'prepare' capability loads only when presented; use 'present'")
        }
        return try await engine.screenshot()
    }

    /// What the renderer read in its last load.
    static func lastLoad(_ renderer: any JourneyRenderer) async -> LoadSummary? {
        if let headless = renderer as? HeadlessRenderer { return headless.lastLoad.map(LoadSummary.init) }
        if let engine = renderer as? WebKitRenderer { return await engine.lastLoad.map(LoadSummary.init) }
        return nil
    }
}
