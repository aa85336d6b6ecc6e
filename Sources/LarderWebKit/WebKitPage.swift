import CWebKitGTK
import LarderHost
import LarderRendering

/// The ``PageEngine`` of a ``WebView``: what ``RendererCore`` asks, as WebKitGTK calls. The
/// core calls it on the main loop only (it lives with its ``WebKitRenderer``), so each call is
/// isolated to ``WebKitActor`` as it runs.
final class WebKitPage: PageEngine {
    private let view: WebView

    init(_ view: WebView) { self.view = view }

    func load(_ url: String) {
        WebKitActor.assumeIsolated { [view] in view.load(url) }
    }

    var isLoading: Bool { WebKitActor.assumeIsolated { [view] in view.isLoading } }

    var isWebProcessResponsive: Bool { WebKitActor.assumeIsolated { [view] in view.isWebProcessResponsive } }

    nonisolated(nonsending) func evaluateJavaScript(_ script: String, world: String?, timeout: Duration) async -> Result<[UInt8], HostError> {
        await view.evaluate(script, world: world, timeout: timeout)
    }

    nonisolated(nonsending) func callAsyncJavaScript(_ body: String, world: String?, timeout: Duration) async -> Result<[UInt8], HostError> {
        await view.callAsync(body, world: world, timeout: timeout)
    }

    func setContextScript(_ source: String) {
        WebKitActor.assumeIsolated { [view] in view.setContextScript(source) }
    }

    func setVisible(_ visible: Bool) {
        WebKitActor.assumeIsolated { [view] in view.setVisible(visible) }
    }

    func terminateWebProcess() {
        WebKitActor.assumeIsolated { [view] in view.terminateWebProcess() }
    }

    func setNetworkProxy(_ proxy: NetworkProxy) {
        WebKitActor.assumeIsolated { [view] in view.setNetworkProxy(proxy) }
    }

    nonisolated(nonsending) func wait(
        for what: String, timeout: Duration, start: (any PageCompletion) -> Void
    ) async -> Result<[UInt8], HostError> {
        await AsyncCall.wait(what, timeout: timeout, start: start)
    }
}
