import Foundation
import LarderTestSupport
import Testing

/// Messages in Larder's own words where a library's leaked through: a file that is not an
/// archive, a source that is not a folder, a bundle reference that is too short or matches
/// several bundles.
@Suite struct LarderTextsCLITests {
    @Test func aFileThatIsNotAnArchiveIsNotALarderArchive() throws {
        let scratch = try Scratch()
        let file = scratch.path + "/notes.tar.gz"
        try Data("just text\n".utf8).write(to: URL(fileURLWithPath: file))
        let said = "not a larder archive: these bytes are not a tar archive, gzip-compressed or not (give a .tar.gz 'larder pack' wrote)"
        let inspect = try CLI.run(["inspect", file])
        #expect(inspect.status == 65)
        #expect(inspect.stderr == "Error: \(file): \(said)\n")
        let install = try CLI.run(["cache", "install", file, "--cache", scratch.path + "/cache"])
        #expect(install.status == 65)
        #expect(install.stderr == "Error: \(file): the archive was refused: \(said)\n")
        #expect(!install.stderr.contains("Unrecognized"))
    }

    @Test func packNamesTheSourceItCouldNotFind() throws {
        let scratch = try Scratch()
        let missing = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/out"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "Error: \(scratch.path)/src: no such source folder; give the folder that holds the bundle's files\n")
        let file = scratch.path + "/bundle.tar.gz"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let notAFolder = try CLI.run(["pack", file, "-o", scratch.path + "/out"])
        #expect(notAFolder.status == 66)
        #expect(notAFolder.stderr == """
            Error: \(file): this is a file, not a source folder; give the folder that holds the bundle's files (an archive is \
            packed already: 'larder inspect' shows it)

            """)
        #expect(!notAFolder.stderr.contains("Invalid argument"))
    }

    @Test func shortAndAmbiguousReferencesAreExplained() throws {
        let scratch = try Scratch()
        let cache = scratch.path + "/cache"
        // Two bundles named paywall: the sample and a copy with one more file.
        try FileManager.default.copyItem(atPath: sampleBundles + "/paywall", toPath: scratch.path + "/paywall")
        try Data("<p>more</p>".utf8).write(to: URL(fileURLWithPath: scratch.path + "/paywall/more.html"))
        var digests: [String] = []
        for source in [sampleBundles + "/paywall", scratch.path + "/paywall"] {
            let pack = try CLI.run(["pack", source, "-o", scratch.path + "/out-\(digests.count)", "--json"])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any])
            let archive = try #require(report["archivePath"] as? String)
            #expect(try CLI.run(["cache", "install", archive, "--cache", cache]).status == 0)
            digests.append(try #require(report["bundleDigest"] as? String))
        }
        let short = try CLI.run(["cache", "show", "abc", "--cache", cache])
        #expect(short.status == 66)
        #expect(short.stderr == """
            Error: no bundle matches 'abc': a digest prefix needs at least 4 hex digits (no bundle is named 'abc' either); \
            'larder cache ls' lists the bundles

            """)
        let ambiguous = try CLI.run(["cache", "pin", "paywall", "--cache", cache])
        #expect(ambiguous.status == 66)
        #expect(ambiguous.stderr.hasPrefix("Error: 'paywall' matches 2 bundles ("), "\(ambiguous.stderr)")
        for digest in digests { #expect(ambiguous.stderr.contains(String(digest.dropFirst(7).prefix(12)) + "… paywall")) }
        #expect(ambiguous.stderr.hasSuffix("); give more of the digest, enough hex digits to tell them apart\n"))
        let none = try CLI.run(["cache", "show", "nothing-like-this", "--cache", cache])
        #expect(none.stderr == "Error: no bundle matches 'nothing-like-this' (by name, digest or digest prefix); 'larder cache ls' lists the bundles\n")
        #expect(try CLI.run(["cache", "show", String(digests[0].dropFirst(7).prefix(8)), "--cache", cache]).status == 0)
    }
}
