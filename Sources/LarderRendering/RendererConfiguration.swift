import LarderFormat
import LarderHost

/// How a renderer is set up.
public struct RendererConfiguration: Sendable {
    /// The page's size in CSS pixels.
    public var viewport: Viewport
    /// What the renderer advertises; the default gets prepared presentation, and waits for a
    /// page whose bundle lists `Manifest.Capability.ready` to call `larder.ready()`.
    public var capabilities: Set<Manifest.Capability>
    /// The longest a load (or a reset's load) may take to become ready.
    public var loadTimeout: Duration
    /// Remote origins content may reach; none by default.
    public var remote: RemotePolicy
    /// The memory a web process may use, in MiB (WebKit's memory pressure settings): past
    /// it, and unable to shrink below it, the engine ends the process.
    public var webProcessMemoryLimit: Int
    /// The network session connects directly, without the egress filter (the policy is
    /// then only the Content-Security-Policy and the navigation checks). For benchmarks
    /// that time a web server against the schemes, and nothing else.
    package var unfilteredNetwork = false

    /// Creates a configuration.
    public init(
        viewport: Viewport = .phone, capabilities: Set<Manifest.Capability> = [.prepare, .visibility, .ready],
        loadTimeout: Duration = .seconds(10), remote: RemotePolicy = .blockAll, webProcessMemoryLimit: Int = 1024
    ) {
        self.viewport = viewport
        self.capabilities = capabilities
        self.loadTimeout = loadTimeout
        self.remote = remote
        self.webProcessMemoryLimit = max(webProcessMemoryLimit, 64)
    }
}

/// Where a renderer is in its life.
public enum RendererState: Sendable, Equatable {
    /// Not started.
    case idle
    /// Started, nothing loaded (or the last load failed).
    case started
    /// Content is ready; `document` is the bundle path of the page shown (the entry after a
    /// load or reset, then where the content navigated).
    case loaded(visible: Bool, document: String)
    /// Stopped for good.
    case stopped
}
