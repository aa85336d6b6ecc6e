import Foundation
import LarderFetch
import LarderTestSupport
import Testing

/// `larder cache fetch` on a terminal shows a person how far it is: bytes of bytes, the rate
/// and the time left; a pipe or a file gets the result only.
@Suite struct FetchProgressCLITests {
    /// Runs the command on a pseudo-terminal (Python's `pty.spawn`), so that what the launcher
    /// prints is what the screen received, stdout and stderr together.
    static let onATerminal = ["/usr/bin/python3", "-c", "import os, pty, sys; sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))"]

    @Test func aTerminalSeesBytesRateAndTimeLeftAndAPipeSeesNoBar() async throws {
        let origin = try Origin()
        let work = try Workspace()
        // The fonts as written: a 760 kB archive, about 2.5 s at 300 KiB/s.
        let onboarding = try work.packWithFontsAsWritten(sampleBundles + "/onboarding")
        try origin.publish([onboarding.archivePath])
        let base = origin.base.appendingPathComponent("rate/300k/").absoluteString
        func fetch(into cache: String) -> [String] {
            ["cache", "fetch", onboarding.bundleDigest.hex, "--origin", base, "--cache", work.path + "/" + cache]
        }

        let terminal = try await LarderProcess.run(fetch(into: "on-a-terminal"), launcher: Self.onATerminal, watchdog: .seconds(60))
        #expect(terminal.status == 0, "\(terminal)")
        let screen = terminal.stdout
        let progress = try Regex(#"fetching \[[#-]{30}\] [0-9]{1,2}% [0-9.]+ (B|kB) of [0-9.]+ kB, [0-9.]+ (B|kB|MB)/s, [0-9]+ s left"#)
        #expect(screen.contains(progress), "\(screen.prefix(2000))")
        #expect(screen.contains("fetched \(onboarding.bundleDigest)"), "\(screen.suffix(500))")

        let piped = try await LarderProcess.run(fetch(into: "piped"), watchdog: .seconds(60))
        #expect(piped.status == 0, "\(piped)")
        #expect(!piped.stderr.contains("fetching") && !piped.stdout.contains("fetching ["), "\(piped.stderr)")
    }
}
