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
final class WebKitFixture: RendererFixture, @unchecked Sendable {
    init() throws {
        _ = try testDisplay.get()
        try super.init(prefix: "larder-webkit")
    }

    /// The renderer's defaults with its load deadline scaled (``testTimeScale``): under
    /// ThreadSanitizer on a busy machine a sample's load alone took the whole 10 s.
    static let configuration = WebKitRenderer.Configuration(loadTimeout: .seconds(10).scaledForTests)

    /// A started renderer with an inbox for its bridge.
    func startedRenderer(_ configuration: WebKitRenderer.Configuration = WebKitFixture.configuration) async throws -> (WebKitRenderer, Inbox) {
        let inbox = Inbox()
        let renderer = WebKitRenderer(configuration: configuration)
        try await renderer.start(bridge: inbox.bridge)
        return (renderer, inbox)
    }
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

