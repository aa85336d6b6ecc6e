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

        /// A script that leaves while the document loads starts a navigation the engine decides
        /// on a timer of its own, which can run after `load-finished`: every load report still
        /// lists it (the readiness answer waits a timer turn). Without that wait, about 1 load in
        /// 60 on a busy machine reported no navigation, and none on an idle one.
        @Test func aNavigationStartedWhileLoadingIsInEveryLoadReport() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles([
                "index.html": #"""
                    <!doctype html><link rel="preconnect" href="https://tracker.example.invalid"><h1>Offer</h1>
                    <script>alert("Act now"); fetch("http://127.0.0.1:9/collect").catch(() => {}); location.href = "https://example.invalid/away";</script>
                    """#
            ])
            let away = BlockedRequest(url: "https://example.invalid/away", reason: "navigation")
            let (renderer, _) = try await fixture.startedRenderer()
            for _ in 0..<100 {
                try await renderer.load(try fixture.content(bundle), visible: true)
                let report = try #require(await renderer.lastLoad)
                #expect(report.blocked.contains(away), "\(report.blocked)")
            }
            await renderer.stop()
        }

        /// A link to a port the Fetch standard bars (9 here: nothing listens there, the usual
        /// "remote" of an attack) is refused by the engine itself, before the view is asked, and
        /// WebKit says nothing: the observer reports it, so the load report lists the link a
        /// script clicked while loading, once; a click the page cancelled followed nothing.
        @Test func aLinkClickedWhileLoadingToABarredPortIsInTheLoadReport() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles([
                "index.html": #"""
                    <!doctype html><h1>Offer</h1><a id="stay" href="http://127.0.0.1:9/cancelled">stay</a>
                    <a id="out" href="http://127.0.0.1:9/offer?visit=1"><span id="inside">out</span></a><a id="away" target="_blank" href="http://0.0.0.0:8080/x">x</a>
                    <script>
                    document.getElementById("stay").addEventListener("click", (event) => event.preventDefault());
                    document.getElementById("stay").click();
                    document.getElementById("inside").click();
                    document.getElementById("away").click();
                    </script>
                    """#
            ])
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            let report = try #require(await renderer.lastLoad)
            #expect(report.blocked == [
                BlockedRequest(url: "http://127.0.0.1:9/offer?visit=1", reason: "navigation"),
                BlockedRequest(url: "http://0.0.0.0:8080/x", reason: "popup"),
            ], "\(report.blocked)")
            #expect(try await renderer.evaluate("location.pathname") == .string("/index.html"))
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
