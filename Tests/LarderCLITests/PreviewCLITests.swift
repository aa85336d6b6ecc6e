import Foundation
import LarderSystem
import LarderTestSupport
import Testing

/// `larder preview` in a real browser: headless Chromium (Debian's `chromium`) loads the
/// preview on 127.0.0.1; the flow renders as packed, the page's bridge messages reach the
/// log, a saved edit is served again within a second, and a broken reference shows the pack
/// error with its file:line:column.
@Suite(.serialized) struct PreviewCLITests {
    /// A running `larder preview` of a copy of a sample; stopped (SIGTERM) when dropped.
    final class Preview {
        let scratch: Scratch
        let folder: String
        let output: CaptureFile
        let pid: pid_t
        let base: String

        /// A preview of a copy of `sample`, or of a folder of `files`.
        init(sample: String, files: [String: String] = [:]) throws {
            scratch = try Scratch()
            folder = scratch.path + "/" + sample
            if files.isEmpty {
                try FileManager.default.copyItem(atPath: sampleBundles + "/" + sample, toPath: folder)
            } else {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for (path, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + path)) }
            }
            output = try CaptureFile()
            pid = try CLI.spawn([CLI.executable, "preview", folder, "--port", "0"], stdout: output.path, stderr: output.path)
            var found: String?
            let deadline = Date().addingTimeInterval(20 * testTimeScale)
            while found == nil && Date() < deadline {
                let text = String(decoding: try output.contents(), as: UTF8.self)
                if let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) { found = String(text[range]) }
                if found == nil { usleep(20_000) }
            }
            base = found ?? ""
            if found == nil {
                kill(pid, SIGTERM)
                _ = try CLI.wait(pid)
                throw CLIError("the preview did not start: \(String(decoding: try output.contents(), as: UTF8.self))")
            }
        }

        deinit {
            kill(pid, SIGTERM)
            _ = try? CLI.wait(pid)
        }

        var log: String { String(decoding: (try? output.contents()) ?? Data(), as: UTF8.self) }

        /// `curl` of a path of the preview.
        func get(_ path: String) throws -> String {
            String(decoding: try CLI.shell("curl -s --max-time 10 '\(base)\(path.dropFirst())'"), as: UTF8.self)
        }

        func status() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(try get("/__larder/status").utf8)) as? [String: Any])
        }

        /// Headless Chromium on `path`: its DOM once loaded (`--dump-dom`), or a screenshot.
        func chromium(_ path: String, screenshot: String? = nil) throws -> String {
            let action = screenshot.map { ["--hide-scrollbars", "--window-size=1000,900", "--screenshot=\($0)"] } ?? ["--dump-dom"]
            let result = try CLI.run(
                program: "/usr/bin/timeout",
                ["60", "/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(scratch.path)/chromium",
                 "--virtual-time-budget=3000"] + action + [base + path.dropFirst()])
            #expect(result.status == 0, "chromium: \(result.stderr.suffix(2000))")
            return result.stdout
        }

        /// Saves `text` over `path` of the flow, and returns how long until the preview served
        /// the new build (its version changed), at most 5 s.
        func edit(_ path: String, _ change: (String) -> String) throws -> Duration {
            let before = try #require(try status()["version"] as? Int)
            let file = folder + "/" + path
            let text = change(try String(contentsOfFile: file, encoding: .utf8))
            let clock = ContinuousClock()
            let start = clock.now
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            while clock.now - start < .seconds(5), try status()["version"] as? Int == before { usleep(5_000) }
            return clock.now - start
        }
    }

    @Test func chromiumShowsTheFlowAndAnEditIsServedWithinASecond() throws {
        let preview = try Preview(sample: "onboarding")
        let shot = preview.scratch.path + "/preview.png"
        _ = try preview.chromium("/?live=0", screenshot: shot)
        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // The phone frame with the rendered onboarding, not an empty page.
        #expect(png.count > 60_000, "\(png.count) bytes")
        if let keep = ProcessInfo.processInfo.environment["LARDER_PREVIEW_SCREENSHOT"] {
            try png.write(to: URL(fileURLWithPath: keep))
        }

        // As a device loads it: the device's policy, the bridge first, fonts by digest.
        let page = String(decoding: try CLI.shell("curl -si --max-time 10 '\(preview.base)flow/index.html'"), as: UTF8.self)
        #expect(page.contains("Content-Security-Policy: default-src 'self' data: blob: 'unsafe-inline' 'unsafe-eval'"), "\(page.prefix(600))")
        #expect(page.contains(#"<head><script src="/__larder/bridge.js"></script>"#))
        #expect(page.contains(#"href="/__larder/font/sha256/"#) && !page.contains("larder-font:"))
        #expect(try preview.chromium("/flow/index.html").contains("Plan a week of meals in five minutes"))

        // A one-file edit of the onboarding: packed again and served within a second.
        var times: [Duration] = []
        for round in 0..<3 {
            times.append(try preview.edit("index.html") { $0.replacingOccurrences(of: round == 0 ? "in five minutes" : "in \(round + 4) minutes", with: "in \(round + 5) minutes") })
        }
        print("preview: reload after a one-file edit of onboarding: \(times.map { "\($0.components.attoseconds / 1_000_000_000_000_000 + $0.components.seconds * 1000) ms" })")
        #expect(times.allSatisfy { $0 < .seconds(1) }, "\(times)")
        #expect(try preview.chromium("/flow/index.html").contains("Plan a week of meals in 7 minutes"))
    }

    @Test func theBridgeLogReceivesThePagesMessages() throws {
        let preview = try Preview(sample: "paywall")
        // The paywall tracks that it was viewed at once (it is shown in the preview).
        let shell = try preview.chromium("/?live=0")
        #expect(shell.contains(#"\"name\":\"paywall:viewed\""#), "\(shell.suffix(1500))")
        let log = try preview.get("/__larder/log")
        #expect(log.contains("paywall:viewed"), "\(log)")
        #expect(preview.log.contains(#"bridge: {"body":"{\"name\":\"paywall:viewed\",\"properties\":{\"plan\":\"annual\"},\"type\":\"track\"}""#), "\(preview.log)")

        // A message the host would refuse is refused with the host's words.
        let refused = String(decoding: try CLI.shell(#"curl -s --max-time 10 -X POST --data '{"type":"teleport"}' '\#(preview.base)__larder/bridge'"#), as: UTF8.self)
        #expect(refused == #"{"refusal":"field 'type' names an unknown bridge message type 'teleport'"}"#)
    }

    /// A flow that presses the panel's buttons itself (the frame and the panel share the
    /// preview's origin) and writes what its runtime heard into the panel's page.
    static let pressingFlow = """
        <!doctype html><html><head><script type="module">
        import { larder } from "./larder.js";
        const shell = parent.document;
        const result = (key, value) => shell.body.setAttribute("data-" + key, JSON.stringify(value));
        larder.on("reset", () => result("reset", "heard"));
        if (!sessionStorage.getItem("ran")) {
          sessionStorage.setItem("ran", "1");
          const seen = [];
          larder.on("visibility", (detail) => seen.push(detail));
          larder.on("context", (context) => seen.push(context));
          shell.getElementById("hide").click();
          const held = larder.track("held_while_hidden");
          await new Promise((resolve) => setTimeout(resolve, 200));
          const before = await (await fetch("/__larder/log")).text();
          shell.getElementById("context").value = '{"plan":"pro"}';
          shell.getElementById("set-context").click();
          shell.getElementById("show").click();
          await held;
          const after = await (await fetch("/__larder/log")).text();
          result("visibility", { seen, heldWhileHidden: !before.includes("held_while_hidden"), sentOnShow: after.includes("held_while_hidden"), plan: larder.context.plan });
          shell.getElementById("reset").click();
        }
        </script></head><body>Pressing</body></html>
        """

    @Test func thePanelHidesShowsResetsAndSetsTheContext() throws {
        let preview = try Preview(sample: "pressing", files: ["larder.json": #"{"runtime": true}"#, "index.html": Self.pressingFlow])
        let shell = try preview.chromium("/?live=0")
        let expected = #"{"seen":[{"visible":false},{"plan":"pro"},{"plan":"pro"},{"visible":true,"session":"preview-1","journey":"preview","revision":1}],"heldWhileHidden":true,"sentOnShow":true,"plan":"pro"}"#
        let escaped = expected.replacingOccurrences(of: "\"", with: "&quot;")
        #expect(shell.contains("data-visibility=\"\(escaped)\""), "\(shell.prefix(1200))")
        #expect(shell.contains(#"data-reset="&quot;heard&quot;""#), "\(shell.prefix(1200))")
    }

    /// A page without a host (the preview's bridge removed): the runtime simulates.
    static let plainBrowserFlow = """
        <!doctype html><html><head><script>delete window.webkit;</script><script type="module">
        import { larder } from "./larder.js";
        const simulated = [];
        addEventListener("larder:simulated", (event) => simulated.push(event.detail.type));
        const results = await Promise.all([larder.purchase("com.example.plus"), larder.capture({ a: 1 }, { event: "e1" }), larder.track("shown_in_browser", { k: "v" })]);
        const refused = await larder.track("Bad").then(() => "accepted", (error) => error.name + ": " + error.message);
        document.body.setAttribute("data-result", JSON.stringify({ simulated, results: [results[0] ?? null, results[1], results[2].startsWith("track/")], refused, visible: larder.visible }));
        </script></head><body>Plain</body></html>
        """

    @Test func withoutAHostTheRuntimeSimulatesAndRefusesBadNames() throws {
        let preview = try Preview(sample: "plain", files: ["larder.json": #"{"runtime": true}"#, "index.html": Self.plainBrowserFlow])
        let page = try preview.chromium("/flow/index.html")
        let expected = #"{"simulated":["purchase","capture","capture"],"results":[null,"e1",true],"refused":"LarderError: 'Bad' is not an event name: use lowercase letters, digits, '_' and ':', starting with a letter (at most 100)","visible":true}"#
        #expect(page.contains("data-result=\"\(expected.replacingOccurrences(of: "\"", with: "&quot;"))\""), "\(page.prefix(1200))")
        // Nothing reached the bridge.
        #expect(try preview.get("/__larder/log") == "[]")
    }

    @Test func aPackErrorIsShownWithItsPlace() throws {
        let preview = try Preview(sample: "onboarding")
        _ = try preview.edit("screen-2.html") { $0.replacingOccurrences(of: "<body", with: "<body><img src=\"images/missing.png\"") }
        let errors = try #require(try preview.status()["errors"] as? [String])
        #expect(errors.count == 1 && errors[0].hasPrefix("screen-2.html:") && errors[0].contains("images/missing.png"), "\(errors)")
        #expect(errors.first?.range(of: #"^screen-2\.html:[0-9]+:[0-9]+: "#, options: .regularExpression) != nil, "\(errors)")
        let page = try preview.chromium("/flow/index.html?live=0")
        #expect(page.contains(#"<ol id="pack-errors"><li>screen-2.html:"#), "\(page.prefix(800))")
        // Fixed and saved: served again.
        _ = try preview.edit("screen-2.html") { $0.replacingOccurrences(of: "<body><img src=\"images/missing.png\"", with: "<body") }
        #expect((try preview.status()["errors"] as? [String])?.isEmpty == true)
    }

    /// The preview decodes `/flow/` paths by the device's rule (`URLPath`): an escape a device
    /// serves is served, one a device refuses is refused here too, not decoded leniently.
    @Test func flowPathsAreDecodedAsADeviceDecodesThem() throws {
        let preview = try Preview(sample: "onboarding")
        func status(_ path: String) throws -> String {
            String(decoding: try CLI.shell("curl -s -o /dev/null -w '%{http_code}' --max-time 10 '\(preview.base)\(path)'"), as: UTF8.self)
        }
        #expect(try status("flow/index.html") == "200")
        #expect(try status("flow/index%2Ehtml") == "200")
        #expect(try status("flow/index.html%") == "400")
        #expect(try status("flow/index.html%zz") == "400")
        #expect(try status("flow/%C3%28.html") == "400")
        #expect(try status("flow/..%2Findex.html") == "400")
        let body = String(decoding: try CLI.shell("curl -s --max-time 10 '\(preview.base)flow/index.html%zz'"), as: UTF8.self)
        #expect(body.contains("malformed percent-encoding"), "\(body)")
    }
}
