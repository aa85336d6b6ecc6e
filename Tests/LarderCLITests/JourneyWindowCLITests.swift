import Foundation
import LarderJourneyView
import LarderSystem
import LarderTestSupport
import Testing

/// Issue 40: `larder journey present --renderer webkit --window`, the journey in a real window,
/// as a person meets it: its picture, and its accessibility tree read and operated by an
/// assistive technology (AT-SPI, on an accessibility bus of the test's own).
@Suite(.serialized) struct JourneyWindowCLITests {
    /// The onboarding sample published as journey "onboarding" in an origin folder.
    static func publishedOrigin(in scratch: Scratch) throws -> (archive: String, folder: String) {
        let archive = try packSample("onboarding", into: scratch.path + "/packed")
        let folder = scratch.path + "/origin"
        let publish = try CLI.run(["publish", archive, "--origin", folder, "--journey", "onboarding", "--key", "pk_test"])
        #expect(publish.status == 0, "\(publish.stderr)")
        return (archive, folder)
    }

    static func scope(_ origin: String, cache: String) -> [String] {
        ["journey", "present", "--origin", origin, "--key", "pk_test", "--journey", "onboarding", "--cache", cache, "--renderer", "webkit", "--window"]
    }

    /// The width and height in a PNG's header.
    static func pngSize(_ path: String) throws -> (Int, Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        return (bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, bytes[20..<24].reduce(0) { $0 << 8 | Int($1) })
    }

    @Test func theWindowsPictureIsWrittenOnceTheFlowOrTheErrorStateShows() async throws {
        let scratch = try Scratch()
        let (archive, _) = try Self.publishedOrigin(in: scratch)
        // The origin cannot be reached; the embedded default shows.
        let shown = try CLI.run(
            Self.scope("http://127.0.0.1:9/", cache: scratch.path + "/cache") + ["--embedded", archive, "--screenshot", scratch.path + "/shown.png"],
            environment: ["DISPLAY": ""])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("Outcome      ended-by-app (the app dismissed it)"), "\(shown.stdout)")
        #expect(shown.stdout.contains("Screenshot   \(scratch.path)/shown.png"))
        #expect(try Self.pngSize(scratch.path + "/shown.png") == (430, 932))

        // Nothing to show: the error state's picture, and 69.
        let failed = try CLI.run(
            Self.scope("http://127.0.0.1:9/", cache: scratch.path + "/empty") + ["--screenshot", scratch.path + "/error.png"],
            environment: ["DISPLAY": ""])
        #expect(failed.status == 69, "\(failed.stderr)")
        #expect(failed.stderr.contains("Error: cannot reach the origin: http://127.0.0.1:9/journeys/onboarding.json"), "\(failed.stderr)")
        #expect(try Self.pngSize(scratch.path + "/error.png") == (430, 932))
        let error = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/error.png"))
        let page = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/shown.png"))
        // (Decoded with GdkPixbuf alone: nothing here may start GTK in this process, which would
        // open no display and leave every web engine test after it without one.)
        // Drawn, not a window caught before its first paint: the flow's picture and the error
        // state's (a title, a line, two buttons) are far from one colour, and far apart.
        let errorPicture = try #require(WindowPicture.decode(png: [UInt8](error)))
        let pagePicture = try #require(WindowPicture.decode(png: [UInt8](page)))
        #expect(pagePicture.colours > 1000, "\(pagePicture.colours) colours")
        #expect(errorPicture.colours > 10, "\(errorPicture.colours) colours")
        #expect(errorPicture.differingPixels(from: pagePicture) > 100_000)
        if let folder = ProcessInfo.processInfo.environment["LARDER_VIEW_SHOTS"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try error.write(to: URL(fileURLWithPath: folder + "/cli-window-error.png"))
            try page.write(to: URL(fileURLWithPath: folder + "/cli-window-shown.png"))
        }
    }

    @Test func usageErrorsOfTheWindow() throws {
        let headless = try CLI.run(["journey", "present", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--window"])
        #expect(headless.status == 64)
        #expect(headless.stderr.hasPrefix("Error: '--window' needs '--renderer webkit'"), "\(headless.stderr)")
        let prepare = try CLI.run(["journey", "prepare", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--window"])
        #expect(prepare.status == 64)
        #expect(prepare.stderr.hasPrefix("Error: Unknown option '--window'"), "\(prepare.stderr)")
        let help = try CLI.run(["journey", "present", "--help"])
        #expect(help.stdout.contains("  --window "))
        #expect(help.stdout.contains("WINDOW: with --window the journey opens in a window of its own"))
    }

    /// An assistive technology (python3-pyatspi, Tools/atspi/journey-view-driver.py) finds the
    /// error state's Try again button, presses it, reads the loading indicator's name while the
    /// origin holds the journey's document, then finds the flow; SIGTERM closes the window.
    @Test func anAssistiveTechnologyFindsTryAgainPressesItAndTheViewPreparesAgain() throws {
        let scratch = try Scratch()
        let (_, folder) = try Self.publishedOrigin(in: scratch)
        let plan = Locked(["unavailable", "hold"])
        let released = Locked(false)
        let requests = Locked(0)
        let origin = try FaultOrigin { request in
            guard request.path.hasPrefix("/journeys/") else { return .file(root: folder) }
            requests.withLock { $0 += 1 }
            switch plan.withLock({ $0.isEmpty ? "serve" : $0.removeFirst() }) {
            case "unavailable":
                return .respond(status: 503, headers: [("Retry-After", "0")], body: Array("maintenance".utf8))
            case "hold":
                let document = [UInt8](FileManager.default.contents(atPath: folder + "/journeys/onboarding.json") ?? Data())
                let sent = Locked(false)
                return .stream(status: 200, headers: [("Content-Type", "application/json")], contentLength: Int64(document.count)) {
                    let deadline = ContinuousClock.now + .seconds(60)
                    while !released.withLock({ $0 }) && ContinuousClock.now < deadline { usleep(20_000) }
                    return sent.withLock { sent in
                        defer { sent = true }
                        return sent ? nil : document
                    }
                }
            default:
                return .file(root: folder)
            }
        }
        defer {
            released.withLock { $0 = true }
            origin.stop()
        }
        let events = scratch.path + "/events.jsonl"
        let stdout = scratch.path + "/stdout"
        // posix_spawn opens the driver's error file without creating it.
        for file in [events, scratch.path + "/driver.err"] { try Data().write(to: URL(fileURLWithPath: file)) }
        // No display: larder starts Xvfb. Unset, not empty: the accessibility registry gives up
        // on an empty DISPLAY.
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        environment["COLUMNS"] = "80"
        let driver = try CLI.spawn(
            ["/usr/bin/dbus-run-session", "--", "/usr/bin/python3", repositoryPath("Tools/atspi/journey-view-driver.py"),
             "--events", events, "--stdout", stdout, "--stderr", scratch.path + "/stderr", "--timeout", "\(Int(60 * testTimeScale))", "--"]
                + [CLI.webEngineExecutable] + Self.scope("http://127.0.0.1:\(origin.port)/", cache: scratch.path + "/cache") + ["--deadline", "60s"],
            environment: environment, stderr: scratch.path + "/driver.err")

        // The origin holds the second request until the loading state was read.
        let deadline = Date().addingTimeInterval(120 * testTimeScale)
        var reports: [[String: Any]] = []
        while Date() < deadline {
            reports = Self.reports(events)
            if reports.contains(where: { $0["state"] as? String == "loading" || $0["error"] != nil }) { break }
            usleep(50_000)
        }
        released.withLock { $0 = true }
        let status = try CLI.wait(driver)
        reports = Self.reports(events)
        let driverErrors = (try? String(contentsOfFile: scratch.path + "/driver.err", encoding: .utf8)) ?? ""
        #expect(status == 0, "\(reports) \(driverErrors)")
        func tree(_ state: String) -> String { reports.first { $0["state"] as? String == state }?["tree"] as? String ?? "" }

        // The error state: a generic message and Try again; the error's own words are not there.
        #expect(tree("error").contains("[push button] 'Try again'"), "\(tree("error"))")
        #expect(tree("error").contains("[label] 'Something went wrong'"))
        #expect(!tree("error").contains("503") && !tree("error").contains("maintenance") && !tree("error").contains("127.0.0.1"))
        #expect(reports.contains { $0["step"] as? String == "pressed" && $0["action"] as? String == "click" })
        // Pressed: the view prepared again, and its indicator has a name and a description.
        #expect(tree("loading").contains("[progress bar] 'Loading' (The journey is being prepared; it appears when it is ready.)"), "\(tree("loading"))")
        #expect(!tree("loading").contains("[label]"))
        #expect(requests.withLock { $0 } == 2)
        // The flow: neither remains.
        #expect(!tree("ready").contains("Try again") && !tree("ready").contains("'Loading'"), "\(tree("ready"))")
        #expect(reports.last?["exit"] as? Int == 0, "\(reports)")
        let printed = (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? ""
        #expect(printed.contains("Outcome      ended-by-app (the app dismissed it)"), "\(printed)")
        if let folder = ProcessInfo.processInfo.environment["LARDER_VIEW_SHOTS"] {
            for state in ["error", "loading", "ready"] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try tree(state).write(toFile: folder + "/atspi-\(state).txt", atomically: true, encoding: .utf8)
            }
        }
    }

    /// The driver's reports so far, one JSON object a line.
    static func reports(_ path: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
