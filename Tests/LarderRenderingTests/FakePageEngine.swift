import LarderFormat
import LarderHost
@testable import LarderRendering

/// A ``PageEngine`` that records what the core asks and answers at once: a load commits and
/// finishes as it starts (unless ``finishesLoads`` is false), and the readiness script gets
/// ``readiness`` with the loaded URL as `href`.
final class FakePageEngine: PageEngine {
    /// The core it reports to, as the glue's signal handlers would.
    weak var core: RendererCore?
    var finishesLoads = true
    /// What the page answers to the readiness script (`href` is filled in).
    var readiness: [String: JSONValue] = FakePageEngine.ready
    private(set) var loaded: [String] = []
    private(set) var contextScripts: [String] = []
    private(set) var evaluated: [String] = []
    private(set) var visible: [Bool] = []
    private(set) var terminations = 0
    private(set) var proxies: [NetworkProxy] = []

    static let ready: [String: JSONValue] = [
        "visibility": "hidden", "rules": [], "faces": [], "errors": [], "blocked": [], "hints": [],
    ]

    func load(_ url: String) {
        loaded.append(url)
        guard finishesLoads else { return }
        core?.loadCommitted(url)
        core?.loadFinished()
    }

    var isLoading: Bool { false }
    var isWebProcessResponsive: Bool { true }

    nonisolated(nonsending) func evaluateJavaScript(_ script: String, world: String?, timeout: Duration) async -> Result<[UInt8], HostError> {
        evaluated.append(script)
        return .success(Array("null".utf8))
    }

    nonisolated(nonsending) func callAsyncJavaScript(_ body: String, world: String?, timeout: Duration) async -> Result<[UInt8], HostError> {
        guard body.contains("document.fonts") else { return .success(Array("null".utf8)) }
        var answer = readiness
        answer["href"] = .string(loaded.last ?? "")
        return .success(JSONValue.object(answer).canonicalBytes)
    }

    func setContextScript(_ source: String) { contextScripts.append(source) }
    func setVisible(_ visible: Bool) { self.visible.append(visible) }
    func terminateWebProcess() { terminations += 1 }
    func setNetworkProxy(_ proxy: NetworkProxy) { proxies.append(proxy) }

    nonisolated(nonsending) func wait(
        for what: String, timeout: Duration, start: (any PageCompletion) -> Void
    ) async -> Result<[UInt8], HostError> {
        let completion = Completion()
        start(completion)
        return completion.outcome ?? .failure(HostError(.renderer, "\(what) did not finish within \(timeout)"))
    }

    /// Keeps the first outcome.
    final class Completion: PageCompletion {
        var outcome: Result<[UInt8], HostError>?
        func finish(_ outcome: Result<[UInt8], HostError>) {
            if self.outcome == nil { self.outcome = outcome }
        }
    }
}
