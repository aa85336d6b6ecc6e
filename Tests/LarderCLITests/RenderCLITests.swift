import Foundation
import LarderSystem
import LarderTestSupport
import Testing

/// `larder render` and `larder journey --renderer webkit`, end to end, in the web engine.
@Suite(.serialized) struct RenderCLITests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The width and height in a PNG's IHDR chunk.
    func pngSize(_ path: String) throws -> (Int, Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        return (bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, bytes[20..<24].reduce(0) { $0 << 8 | Int($1) })
    }

    @Test func rendersAnArchiveToAPNGAndStopsTheXvfbItStarted() throws {
        let scratch = try Scratch()
        let archive = try packSample("paywall", into: scratch.path)
        // No display: larder starts Xvfb for the run.
        let result = try CLI.run(
            ["render", archive, "--screenshot", scratch.path + "/paywall.png", "--viewport", "390x844", "--json"], environment: ["DISPLAY": ""])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try json(result.stdout)
        #expect(report["name"] as? String == "paywall")
        #expect(report["viewport"] as? String == "390x844")
        let fonts = try #require(report["fonts"] as? [[String: Any]])
        #expect(fonts.map { $0["family"] as? String } == ["Lato", "Fira Code"])
        #expect(fonts.allSatisfy { $0["status"] as? String == "loaded" })
        #expect((report["blocked"] as? [Any])?.isEmpty == true)
        #expect(try pngSize(scratch.path + "/paywall.png") == (390, 844))
        // The archive went to a temporary cache, removed afterwards; the display is gone too.
        let display = try #require(report["display"] as? String)
        let socket = "/tmp/.X11-unix/X" + display.dropFirst()
        let deadline = Date().addingTimeInterval(5 * testTimeScale)
        while FileManager.default.fileExists(atPath: socket) && Date() < deadline { usleep(20_000) }
        #expect(!FileManager.default.fileExists(atPath: socket), "Xvfb \(display) outlived larder")
    }

    @Test func rendersABundleFromACacheForPeople() throws {
        let scratch = try Scratch()
        let archive = try packSample("onboarding", into: scratch.path)
        let cache = scratch.path + "/cache"
        #expect(try CLI.run(["cache", "install", archive, "--cache", cache]).status == 0)
        // Run where a folder of that name is (the flow's source, as in a project): the name still
        // means the cached bundle; only a path with a '/' or an archive's extension is an archive.
        let project = scratch.path + "/project"
        try FileManager.default.createDirectory(atPath: project + "/onboarding", withIntermediateDirectories: true)
        let result = try CLI.run(
            program: "/bin/sh",
            ["-c", #"cd "$1" && shift && exec "$@""#, "sh", project, CLI.executable, "render", "onboarding", "--cache", cache, "--screenshot",
             scratch.path + "/out.png"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Fonts        Lato 400 loaded, Lato 400 loaded, Lato 700 loaded, Lato 700 loaded, Open Sans 400 loaded\n"), "\(result.stdout)")
        #expect(result.stdout.contains("Screenshot   \(scratch.path)/out.png (430x932, "))
        #expect(try pngSize(scratch.path + "/out.png") == (430, 932))
    }

    @Test func aFlowThatDoesNotRenderFailsNamingTheFontAndWritesNothing() throws {
        let scratch = try Scratch()
        let archive = try packSample("legacy-prompt", into: scratch.path)
        let cache = scratch.path + "/cache"
        #expect(try CLI.run(["cache", "install", archive, "--cache", cache]).status == 0)
        let show = try json(try CLI.run(["cache", "show", "legacy-prompt", "--cache", cache, "--json"]).stdout)
        let files = try #require((show["manifest"] as? [String: Any])?["files"] as? [[String: Any]])
        let font = try #require(files.first { $0["path"] as? String == "fonts/DejaVuSans.latin.woff2" }?["digest"] as? String)
        let hex = String(font.dropFirst("sha256:".count))
        try flipFirstByte(at: cache + "/objects/" + hex.prefix(2) + "/" + hex.dropFirst(2))

        let result = try CLI.run(["render", "legacy-prompt", "--cache", cache, "--screenshot", scratch.path + "/out.png"])

        #expect(result.status == 65)
        #expect(result.stderr.contains("larder-font://sha256/\(hex)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/out.png"))
    }

    @Test(arguments: [
        (["render", "no-such-bundle", "--screenshot", "x.png"], Int32(66), "no bundle matches 'no-such-bundle'"),
        (["render", "x"], 64, "Missing '--screenshot <png>'"),
        (["render", "x", "--screenshot", "x.png", "--viewport", "big"], 64, "Invalid '--viewport <WxH>': 'big'"),
        (["render"], 64, "Missing expected argument '<archive-or-bundle>'"),
        (["render", "/", "--screenshot", "x.png"], 66, "/ is a folder, not a bundle archive: pack it first"),
        (["render", "missing.tar.gz", "--screenshot", "x.png"], 66, "missing.tar.gz: no such archive"),
    ])
    func badInvocationsAreTypedErrors(_ arguments: [String], _ status: Int32, _ message: String) throws {
        let scratch = try Scratch()
        // An empty cache: a bundle name is looked up in it (a missing cache folder is exit 66 too).
        try FileManager.default.createDirectory(atPath: scratch.path + "/cache", withIntermediateDirectories: false)
        let result = try CLI.run(arguments + (arguments.count > 1 ? ["--cache", scratch.path + "/cache"] : []))
        #expect(result.status == status)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func anUnwritableScreenshotIsExit73() throws {
        let scratch = try Scratch()
        let archive = try packSample("legacy-prompt", into: scratch.path)
        let result = try CLI.run(["render", archive, "--screenshot", scratch.path + "/missing/folder/out.png"])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write the screenshot"))
    }

    @Test func theJourneyHostPresentsInTheWebEngine() throws {
        let scratch = try Scratch()
        let archive = try packSample("onboarding", into: scratch.path)
        let scope = ["--origin", "http://127.0.0.1:9/", "--key", "pk_sample_key", "--journey", "onboarding", "--cache", scratch.path + "/cache"]
        let result = try CLI.run(
            ["journey", "present", "--offline", "--embedded", archive, "--renderer", "webkit", "--screenshot", scratch.path + "/shown.png", "--json"]
                + scope)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try json(result.stdout)
        #expect(report["renderer"] as? String == "webkit")
        #expect(report["mode"] as? String == "prepared-hidden")
        #expect(report["screenshot"] as? String == scratch.path + "/shown.png")
        let load = try #require(report["load"] as? [String: Any])
        #expect((load["fonts"] as? [[String: Any]])?.count == 5)  // onboarding: Lato 400 and 700 (latin and arrows), Open Sans
        let timeline = try #require(report["timeline"] as? [[String: Any]]).compactMap { $0["kind"] as? String }
        #expect(timeline.contains("renderer-ready") && timeline.contains("presented") && timeline.contains("dismissed"))
        #expect(try pngSize(scratch.path + "/shown.png") == (430, 932))

        let headless = try CLI.run(["journey", "prepare", "--offline", "--screenshot", "x.png"] + scope)
        #expect(headless.status == 64)
        #expect(headless.stderr.contains("'--screenshot' needs '--renderer webkit'"))
        let unknown = try CLI.run(["journey", "prepare", "--offline", "--renderer", "chrome"] + scope)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("Invalid '--renderer <name>': 'chrome'"))
    }

    /// Packs a flow made of these files with `larder pack` and returns the archive.
    func packFlow(_ files: [String: String], in scratch: Scratch) throws -> String {
        let source = scratch.path + "/flow-\(UUID().uuidString)"
        for (path, text) in files {
            let url = URL(fileURLWithPath: source + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let pack = try CLI.run(["pack", source, "-o", scratch.path + "/out", "--json"])
        #expect(pack.status == 0, "\(pack.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any]
        return try #require(report?["archivePath"] as? String)
    }

    /// The web processes running under `pid` (through their sandbox).
    func webProcesses(under pid: pid_t) -> [RunningProcess] {
        ProcessTable.descendants(of: pid).filter { $0.name.hasPrefix("WebKitWebProces") }
    }

    /// Running and not a zombie (state `Z` in `/proc/<pid>/stat`, after the name's parenthesis).
    static func isLive(_ process: RunningProcess) -> Bool {
        guard ProcessTable.isRunning(process), let stat = try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    static let runaway = ["index.html": "<!doctype html><h1>Offer</h1><script>while (true) {}</script>"]

    @Test func aRunawayFlowFailsAtTheDeadlineAndLeavesNoWebProcess() throws {
        let scratch = try Scratch()
        let archive = try packFlow(Self.runaway, in: scratch)
        let err = try CaptureFile()
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = "80"
        let pid = try CLI.spawn([CLI.executable, "render", archive, "--screenshot", scratch.path + "/out.png"], environment: env, stderr: err.path)
        // Watch its web processes while it runs (by pid: others run WebKit on this machine too).
        var seen: [pid_t: RunningProcess] = [:]
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(60 * testTimeScale)
        while Date() < deadline {
            for process in webProcesses(under: pid) { seen[process.pid] = process }
            if waitpid(pid, &status, WNOHANG) == pid { break }
            usleep(50_000)
        }
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let stderr = String(decoding: try err.contents(), as: UTF8.self)
        #expect(exit == 65, "\(stderr)")
        #expect(stderr.contains("not ready within 10 s") && stderr.contains("its web process was ended"), "\(stderr)")
        #expect(!seen.isEmpty)
        // Ended with the render, not necessarily gone yet: the kernel tears a killed web process
        // down in its own time (on a busy machine, past the render's exit), and an orphan's
        // zombie waits for whoever reaps it here.
        let gone = Date().addingTimeInterval(5 * testTimeScale)
        while Date() < gone, seen.values.contains(where: Self.isLive) { usleep(50_000) }
        #expect(seen.values.filter(Self.isLive).isEmpty, "left running: \(seen.values.filter(Self.isLive))")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/out.png"))
    }

    @Test func killingRenderEndsItsWebProcessToo() throws {
        let scratch = try Scratch()
        let archive = try packFlow(Self.runaway, in: scratch)
        let pid = try CLI.spawn([CLI.executable, "render", archive, "--screenshot", scratch.path + "/out.png"])
        var web: [RunningProcess] = []
        let deadline = Date().addingTimeInterval(30 * testTimeScale)
        while web.isEmpty && Date() < deadline {
            web = webProcesses(under: pid)
            usleep(50_000)
        }
        #expect(!web.isEmpty)
        kill(pid, SIGKILL)
        #expect(try CLI.wait(pid) == 128 + SIGKILL)
        // SIGKILL reaches the sandbox at once (`--die-with-parent`); tearing down a killed web
        // process of 150 MB takes the kernel a while on a busy machine, and its zombie waits for
        // whoever reaps it.
        let gone = Date().addingTimeInterval(10 * testTimeScale)
        while web.contains(where: Self.isLive) && Date() < gone { usleep(20_000) }
        #expect(!web.contains(where: Self.isLive), "outlived render: \(web.filter(Self.isLive))")
    }

    @Test func whatAFlowTriedIsListedAndItsDialogsAnswered() throws {
        let scratch = try Scratch()
        let archive = try packFlow([
            "index.html": """
                <!doctype html><link rel="preconnect" href="https://tracker.example.invalid"><h1>Offer</h1>
                <script>alert('Act now'); fetch('http://127.0.0.1:9/collect').catch(() => {}); location.href = 'https://example.invalid/away';</script>
                """
        ], in: scratch)
        let result = try CLI.run(["render", archive, "--screenshot", scratch.path + "/out.png", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try json(result.stdout)
        let blocked = try #require(report["blocked"] as? [[String: String]])
        #expect(blocked.contains(["url": "https://tracker.example.invalid/", "reason": "preconnect"]), "\(blocked)")
        #expect(blocked.contains(["url": "https://example.invalid/away", "reason": "navigation"]), "\(blocked)")
        #expect(report["dialogs"] as? [[String: String]] == [["kind": "alert", "message": "Act now"]])
        let people = try CLI.run(["render", archive, "--screenshot", scratch.path + "/out.png"])
        #expect(people.stdout.contains("Dialogs      alert 'Act now' (answered at once)"), "\(people.stdout)")
        #expect(people.stdout.contains("https://example.invalid/away (navigation)"), "\(people.stdout)")
    }

    @Test func aJourneyWhoseRendererIsNotReadyIsNothingToShow() throws {
        let scratch = try Scratch()
        let archive = try packFlow(Self.runaway, in: scratch)
        let result = try CLI.run([
            "journey", "present", "--offline", "--embedded", archive, "--renderer", "webkit", "--origin", "http://127.0.0.1:9/",
            "--key", "pk_sample_key", "--journey", "runaway", "--cache", scratch.path + "/cache",
        ])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("its web process was ended"), "\(result.stderr)")
    }
}
