import Foundation
import LarderTestSupport
import Testing

/// Runs that went well say nothing on stderr that the user can do nothing about: the project's
/// own samples pack without a warning, and the web engine does not warn that it cannot reach an
/// accessibility bus where there is none (with one, accessibility works:
/// `JourneyWindowCLITests`, under `dbus-run-session`).
@Suite(.serialized) struct QuietRunsCLITests {
    @Test(arguments: ["onboarding", "paywall", "legacy-prompt"])
    func theSamplesPackWithoutAWarning(_ name: String) throws {
        let scratch = try Scratch()
        let result = try CLI.run(["pack", sampleBundles + "/" + name, "-o", scratch.path])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test func theWebEngineDoesNotWarnAboutAnAccessibilityBusThereIsNot() throws {
        let scratch = try Scratch()
        let archive = try packSample("paywall", into: scratch.path)
        // No session bus and no accessibility bus, as in a terminal without a desktop or in CI;
        // no display either: larder starts Xvfb.
        let unset = ["DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "XDG_RUNTIME_DIR", "WEBKIT_A11Y_BUS_ADDRESS", "NO_AT_BRIDGE", "DISPLAY",
                     "WAYLAND_DISPLAY"]
        let result = try CLI.run(
            program: "/usr/bin/env", unset.flatMap { ["-u", $0] } + [CLI.executable, "render", archive, "--screenshot", scratch.path + "/out.png"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("a11y"), "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }
}
