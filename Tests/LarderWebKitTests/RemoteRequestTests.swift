import Foundation
import LarderFormat
import LarderHost
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// Content reaches no remote server unless the app allows its origin, and every blocked
    /// request is reported.
    @Suite struct RemoteRequests {
        static let page = """
            <!doctype html><h1>Offers</h1>
            <img src="http://127.0.0.1:9/pixel.png" alt="">
            <script>fetch("https://tracker.example.invalid/collect?visit=1").catch(() => {});</script>
            """

        @Test func aFlowThatFetchesARemoteURLIsBlockedAndReported() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles(["index.html": Self.page])
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)

            // The script's fetch may be refused after the first screen is ready: wait for both
            // reports (bounded), in the renderer's running list.
            let both = await within {
                let blocked = await renderer.blockedRequests
                return blocked.contains { $0.url.hasPrefix("https://tracker.example.invalid") && $0.reason == "connect-src" }
                    && blocked.contains { $0.url.hasPrefix("http://127.0.0.1:9") && $0.reason == "img-src" }
            }
            let blocked = await renderer.blockedRequests
            #expect(both, "\(blocked)")
            #expect(blocked.count == 2, "\(blocked)")
            let report = try #require(await renderer.lastLoad)
            #expect(report.blocked.allSatisfy { ["connect-src", "img-src"].contains($0.reason) }, "\(report.blocked)")

            // A navigation away is refused too, and the page stays.
            _ = try await renderer.evaluate(#"location.href = "https://example.invalid/leave"; undefined"#)
            #expect(await within { await renderer.blockedRequests.contains(BlockedRequest(url: "https://example.invalid/leave", reason: "navigation")) })
            #expect(try await renderer.evaluate("location.pathname") == .string("/index.html"))
            #expect(await renderer.state == .loaded(visible: false, document: "index.html"))
            await renderer.stop()
        }

        @Test func anAllowedOriginIsNotBlocked() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles(["index.html": Self.page])
            let policy = try RemotePolicy(allowing: ["http://127.0.0.1:9"])
            let (renderer, _) = try await fixture.startedRenderer(.init(remote: policy))
            try await renderer.load(try fixture.content(bundle), visible: false)
            let blocked = await renderer.blockedRequests
            #expect(blocked.map(\.reason) == ["connect-src"], "\(blocked)")  // the tracker only
            await renderer.stop()
        }
    }
}
