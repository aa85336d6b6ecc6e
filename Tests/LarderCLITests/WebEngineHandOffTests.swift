import Foundation
import LarderTestSupport
import Testing

/// `larder` runs without the web engine and hands `render` and `journey --renderer webkit` to
/// `larder-webkit` next to it (the hand-over itself is exercised by every test of
/// ``RenderCLITests``, which run `larder`).
@Suite struct WebEngineHandOffTests {
    /// The shared libraries the dynamic loader maps for `program` (it lists them and exits
    /// without running the program when `LD_TRACE_LOADED_OBJECTS` is set, as `ldd` does).
    func loadedLibraries(_ program: String) throws -> String {
        let out = try CaptureFile()
        var environment = ProcessInfo.processInfo.environment
        environment["LD_TRACE_LOADED_OBJECTS"] = "1"
        let status = try CLI.wait(CLI.spawn([program], environment: environment, stdout: out.path))
        #expect(status == 0)
        return String(decoding: try out.contents(), as: UTF8.self)
    }

    @Test func larderDoesNotLoadTheWebEngineAndItsHelperDoes() throws {
        let larder = try loadedLibraries(CLI.executable)
        #expect(larder.contains("libarchive"), "\(larder)")  // the listing works
        #expect(!larder.contains("libwebkit2gtk"), "\(larder)")
        #expect(!larder.contains("libgtk-3"), "\(larder)")
        let helper = try loadedLibraries(CLI.webEngineExecutable)
        #expect(helper.contains("libwebkit2gtk-4.1"), "\(helper)")
    }

    /// A `larder` without `larder-webkit` beside it still answers usage errors and help for the
    /// engine's commands, and refuses to run them with exit 69, naming the program to build,
    /// before doing anything (no cache, no PNG).
    @Test func withoutTheHelperTheEngineCommandsExit69NamingIt() throws {
        let scratch = try Scratch()
        let archive = try packSample("paywall", into: scratch.path)
        let alone = scratch.path + "/alone"
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        let larder = alone + "/larder"
        // A hard link, not a copy: a copy's descriptor, open for writing, can leak into a child
        // another test forks meanwhile, and exec then fails with ETXTBSY. (/proc/self/exe names
        // the link the program was started by.)
        if link(CLI.executable, larder) != 0 {
            try FileManager.default.copyItem(atPath: CLI.executable, toPath: larder)
        }

        let render = try CLI.run(program: larder, ["render", archive, "--screenshot", scratch.path + "/out.png", "--cache", scratch.path + "/cache"])
        #expect(render.status == 69, "\(render.stderr)")
        #expect(render.stderr.contains("\(alone)/larder-webkit, which is missing"), "\(render.stderr)")
        #expect(render.stderr.contains("swift build -c release --product larder-webkit"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/out.png"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/cache"))

        let scope = ["--origin", "http://127.0.0.1:9/", "--key", "pk_sample_key", "--journey", "paywall", "--cache", scratch.path + "/cache"]
        let journey = try CLI.run(program: larder, ["journey", "prepare", "--offline", "--embedded", archive, "--renderer", "webkit"] + scope)
        #expect(journey.status == 69, "\(journey.stderr)")
        #expect(journey.stderr.contains("larder-webkit, which is missing"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/cache"))

        // Parsed and answered by larder itself, exactly as with the helper present.
        let usage = try CLI.run(program: larder, ["render", archive])
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("Error: Missing '--screenshot <png>'\nUsage: larder render <archive-or-bundle>"), "\(usage.stderr)")
        let help = try CLI.run(program: larder, ["render", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("OVERVIEW: Render a flow's entry screen in the web engine"))
        // And the headless journey needs no engine.
        let headless = try CLI.run(program: larder, ["journey", "prepare", "--offline", "--embedded", archive, "--json"] + scope)
        #expect(headless.status == 0, "\(headless.stderr)")
    }
}
