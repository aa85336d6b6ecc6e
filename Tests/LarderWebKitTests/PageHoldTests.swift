import Foundation
import LarderFormat
import LarderHost
import LarderSystem
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// Nothing a page does holds the renderer: dialogs are answered at once, navigations away
    /// from the bundle refused, and a page that never finishes is stopped at the deadline.
    @Suite struct PageHold {
        @Test(arguments: [
            ("alert('Act now')", "alert", "Act now"),
            ("confirm('Leave?')", "confirm", "Leave?"),
            ("prompt('Your name?', 'Ann')", "prompt", "Your name?"),
            ("print()", "print", ""),
        ])
        func aDialogAtLoadIsAnsweredAtOnceAndReported(_ call: String, _ kind: String, _ message: String) async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles([
                "index.html": "<!doctype html><h1>Offer</h1><script>window.answer = \(call);</script>"
            ])
            let (renderer, _) = try await fixture.startedRenderer()
            let started = ContinuousClock.now
            try await renderer.load(try fixture.content(bundle), visible: false)
            #expect(ContinuousClock.now - started < .seconds(5).scaledForTests)
            #expect(await renderer.dialogs == [PageDialog(kind: kind, message: message)])
            #expect(await renderer.lastLoad?.dialogs == [PageDialog(kind: kind, message: message)])
            // Refused: confirm says no, prompt gives nothing.
            let answer = try await renderer.evaluate("window.answer === undefined ? 'undefined' : window.answer")
            #expect(answer == (kind == "confirm" ? .bool(false) : kind == "prompt" ? .null : .string("undefined")), "\(answer)")
            await renderer.stop()
        }

        @Test func aPageThatAsksToStayDoesNotHoldAReset() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles([
                "index.html": """
                    <!doctype html><h1>Offer</h1>
                    <script>addEventListener('beforeunload', (event) => { event.preventDefault(); event.returnValue = 'Stay'; return 'Stay'; });</script>
                    """
            ])
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            let started = ContinuousClock.now
            try await renderer.reset()
            #expect(ContinuousClock.now - started < .seconds(5).scaledForTests)
            #expect(await renderer.resets == 1)
            #expect(await renderer.dialogs.allSatisfy { $0.kind == "beforeunload" })
            await renderer.stop()
        }

        @Test(arguments: ["file:///etc/passwd", "about:config", "https://example.invalid/away", "larder://\(String(repeating: "ab", count: 32))/index.html"])
        func aNavigationAwayAtLoadIsRefusedAndTheEntryIsJudged(_ target: String) async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles([
                "index.html": "<!doctype html><h1>Offer</h1><script>location.href = \(PageScriptsQuoting.quoted(target));</script>"
            ])
            let (renderer, _) = try await fixture.startedRenderer()
            let started = ContinuousClock.now
            try await renderer.load(try fixture.content(bundle), visible: false)
            #expect(ContinuousClock.now - started < .seconds(5).scaledForTests)
            #expect(await renderer.state == .loaded(visible: false, document: "index.html"))
            #expect(try await renderer.evaluate("location.pathname") == .string("/index.html"))
            // WebKit refuses a file: URL itself, in the web process, before asking (a document of
            // another origin may not show local files) and says so only on its console: there is
            // nothing to report. Every other navigation is asked about, refused and reported.
            guard !target.hasPrefix("file:") else { return await renderer.stop() }
            let reported = await eventually(within: .seconds(2)) {
                await renderer.blockedRequests.contains(BlockedRequest(url: target, reason: "navigation"))
            }
            let blocked = await renderer.blockedRequests
            #expect(reported, "\(blocked)")
            await renderer.stop()
        }

        @Test(arguments: [
            ("a script that never returns", "<script>while (true) {}</script>"),
            ("a document that grows without end", "<script>for (;;) document.body.appendChild(document.createElement('div'));</script>"),
            ("a loop after the load", "<script>addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0));</script>"),
        ])
        func aRunawayPageIsStoppedAtTheDeadlineByEndingItsWebProcess(_ name: String, _ body: String) async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles(["index.html": "<!doctype html><body><h1>Offer</h1>" + body])
            let (renderer, _) = try await fixture.startedRenderer(.init(loadTimeout: .milliseconds(1500)))
            let content = try fixture.content(bundle)
            let started = ContinuousClock.now
            let error = await hostError { () async throws(HostError) in try await renderer.load(content, visible: false) }
            #expect(ContinuousClock.now - started < .seconds(6).scaledForTests, "\(name)")
            #expect(error?.code == .renderer, "\(name)")
            #expect(error?.message.contains("not ready within") == true, "\(name): \(String(describing: error))")
            #expect(error?.message.contains("web process was ended") == true, "\(name): \(String(describing: error))")
            // Ended at once: no web process of this test process is left spinning or growing.
            #expect(await eventually(within: .seconds(2)) { WebProcesses.running().isEmpty }, "\(name): \(WebProcesses.running())")
            // The renderer recovers: the next load starts a new web process.
            let (fine, _) = try fixture.installFiles(["index.html": "<!doctype html><h1>Fine</h1>"])
            try await renderer.load(try fixture.content(fine), visible: false)
            #expect(try await renderer.evaluate("document.querySelector('h1').textContent") == .string("Fine"))
            await renderer.stop()
        }

        @Test func aLoadThatNeverFinishesIsStoppedAtTheDeadline() async throws {
            let fixture = try WebKitFixture()
            let stalling = try FaultOrigin { _ in .headersThenStall(status: 200, headers: [("Content-Type", "image/png")], contentLength: 1000) }
            defer { stalling.stop() }
            let (bundle, _) = try fixture.installFiles([
                "index.html": #"<!doctype html><h1>Offer</h1><img src="http://127.0.0.1:\#(stalling.port)/hero.png" alt="">"#
            ])
            let policy = try RemotePolicy(allowing: ["http://127.0.0.1:\(stalling.port)"])
            let (renderer, _) = try await fixture.startedRenderer(.init(loadTimeout: .seconds(3).scaledForTests, remote: policy))
            let content = try fixture.content(bundle)
            let error = await hostError { () async throws(HostError) in try await renderer.load(content, visible: false) }
            #expect(error?.message.contains("not ready within") == true, "\(String(describing: error))")
            #expect(stalling.connectionsAccepted > 0)
            #expect(await eventually(within: .seconds(2)) { WebProcesses.running().isEmpty }, "\(WebProcesses.running())")
            await renderer.stop()
        }
    }
}

/// The web processes under this test process (through their sandbox).
enum WebProcesses {
    static func running() -> [RunningProcess] {
        ProcessTable.descendants(of: getpid()).filter { $0.name.hasPrefix("WebKitWebProces") }
    }
}

/// JavaScript string literals for test pages.
enum PageScriptsQuoting {
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
