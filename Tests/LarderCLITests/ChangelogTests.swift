import Foundation
import LarderTestSupport
import Testing

/// CHANGELOG.md's latest release is the version the CLI prints.
@Suite struct ChangelogTests {
    @Test func latestReleaseIsTheVersionTheCLIPrints() throws {
        let changelog = try String(contentsOfFile: repositoryPath("CHANGELOG.md"), encoding: .utf8)
        // Release headings read `## [<version>] - <date>`; `## [Unreleased]` collects what is not released yet.
        let releases = changelog.split(separator: "\n").filter { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        let latest = try #require(releases.first, "CHANGELOG.md has no release heading")
        let version = latest.dropFirst("## [".count).prefix { $0 != "]" }
        let result = try CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "\(version)\n")
    }
}
