import LarderHost

/// The renderer a `larder journey` command runs the host with: `--renderer headless` (the
/// default) or `--renderer webkit`, with `--screenshot`, `--viewport` and (`present` only)
/// `--window` for the latter.
struct RendererChoice {
    /// `--screenshot <png>` of `journey prepare|present`.
    static let screenshotOption = TypedOption<String?>(
        OptionSpec(names: ["--screenshot"], value: "png", help: "With --renderer webkit: a PNG of the prepared (hidden) or presented screen."))
    /// The options that choose the renderer, in the order of the help.
    static let options = [Renderer.option.spec, screenshotOption.spec, WebEngineSupport.viewport.spec]

    var renderer: Renderer
    var screenshot: String?
    var viewport: Viewport
    /// `--window`: present in a window of the engine's journey view (``JourneyWindow``).
    var window: Bool

    /// `headless` or `webkit`.
    var name: String { renderer.rawValue }

    init(_ parsed: ParsedArguments, spec: CommandSpec) throws(UsageError) {
        renderer = try parsed[Renderer.option]
        screenshot = try parsed[Self.screenshotOption]
        viewport = try parsed[WebEngineSupport.viewport]
        window = parsed.flag(JourneyWindow.option.names[0])
        if window && renderer != .webkit { throw UsageError(message: "'--window' needs '--renderer webkit'", command: spec) }
        if renderer == .headless {
            if screenshot != nil { throw UsageError(message: "'--screenshot' needs '--renderer webkit'", command: spec) }
            if parsed.isGiven(WebEngineSupport.viewport) { throw UsageError(message: "'--viewport' needs '--renderer webkit'", command: spec) }
        }
        if screenshot?.isEmpty == true { throw UsageError(message: "Missing value for '--screenshot <png>'", command: spec) }
    }

    /// A new renderer. For the web engine, the engine takes the command over first (`larder`
    /// hands it to `larder-webkit`: call this before doing anything), then gets a display
    /// (Xvfb when none is set).
    /// - Throws: ``HostError/Code/renderer`` when the engine's program or a display cannot
    ///   be started.
    func makeRenderer(engine: any WebEngineRunner) throws(HostError) -> any JourneyRenderer {
        guard renderer == .webkit else { return HeadlessRenderer() }
        try engine.takeOver()
        _ = try engine.display()
        return try engine.makeRenderer(viewport: viewport)
    }

    /// What the renderer read in its last load.
    static func lastLoad(_ renderer: any JourneyRenderer, engine: any WebEngineRunner) async -> LoadSummary? {
        if let headless = renderer as? HeadlessRenderer { return headless.lastLoad.map(LoadSummary.init) }
        return await engine.lastLoad(renderer)
    }
}
