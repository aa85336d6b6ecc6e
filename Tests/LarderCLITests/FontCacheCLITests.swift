import Foundation
import LarderFormat
import LarderTestSupport
import Testing

/// `larder pack`'s font pipeline end to end: the report of each face (text and `--json`), what
/// `inspect` reads back, and the font cache surviving packs killed while they convert.
@Suite struct FontCacheCLITests {
    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func packAndInspectReportEachFace() throws {
        let scratch = try Scratch()
        let packed = try CLI.run(["pack", sampleBundles + "/onboarding", "-o", scratch.path, "--font-cache", scratch.path + "/fonts", "--json"])
        #expect(packed.status == 0, "\(packed.stderr)")
        let report = try Self.json(packed.stdout)
        let fonts = try #require(report["fonts"] as? [String: Any])
        #expect((fonts["libraries"] as? String)?.hasPrefix("harfbuzz 6.0.0, woff2 1.0.2, brotli ") == true, "\(fonts)")
        #expect(fonts["cacheFolder"] as? String == scratch.path + "/fonts")
        let faces = try #require(fonts["faces"] as? [[String: Any]])
        #expect(faces.map { $0["source"] as? String } == ["fonts/Lato-Regular.ttf", "fonts/Lato-Bold.ttf", "fonts/OpenSans-Regular.ttf"])
        #expect(faces.allSatisfy { $0["outcome"] as? String == "converted" })
        let lato = faces[0]
        #expect(lato["sourceBytes"] as? Int == 661_592)
        let subsets = try #require(lato["subsets"] as? [[String: Any]])
        #expect(subsets.map { $0["name"] as? String } == ["latin", "u2190"])
        #expect(subsets.map { $0["essential"] as? Bool } == [true, true])
        #expect((subsets[1]["unicodeRange"] as? String) == "U+2190-2193")
        #expect((lato["packedBytes"] as? Int ?? .max) < 60_000)

        let text = try CLI.run(["pack", sampleBundles + "/paywall", "-o", scratch.path, "--font-cache", scratch.path + "/fonts"])
        #expect(text.stdout.contains("faces    2, 966 kB of sources -> "), "\(text.stdout)")
        #expect(text.stdout.contains("'Fira Code' 600 normal (css/paywall.css:11:1): fonts/FiraCode-SemiBold.ttf, 305 kB -> "))
        #expect(text.stdout.contains(" essential fonts/FiraCode-SemiBold.latin.woff2: U+"), "\(text.stdout)")

        let archive = try #require(report["archivePath"] as? String)
        let inspect = try CLI.run(["inspect", archive])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("Font faces\n  'Lato' 400 normal (css/onboarding.css:"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains(": fonts/Lato-Regular.ttf, 662 kB -> "))
        let inspected = try Self.json(try CLI.run(["inspect", archive, "--json"]).stdout)
        let listed = try #require(inspected["fonts"] as? [[String: Any]])
        #expect(listed.count == 3)
        #expect((listed[0]["subsets"] as? [[String: Any]])?.map { $0["name"] as? String } == ["latin", "u2190"])
        #expect(listed[0]["sourceBytes"] as? Int == 661_592)
    }

    /// Packs killed at moments during their conversions leave the font cache usable: the next
    /// pack gives the bytes a pack with no font cache gives, every entry it finds checks out,
    /// and what a writer that died left an hour ago is removed.
    @Test func theFontCacheSurvivesPacksKilledWhileConverting() throws {
        let scratch = try Scratch()
        let cache = scratch.path + "/fonts"
        let reference = try CLI.run(["pack", sampleBundles + "/onboarding", "-o", scratch.path + "/reference", "--font-cache", scratch.path + "/unused", "--json"])
        #expect(reference.status == 0)
        let referencePath = try #require(try Self.json(reference.stdout)["archivePath"] as? String)
        let expected = try #require(FileManager.default.contents(atPath: referencePath))
        for delay in [0.2, 0.7, 1.5, 2.5] {
            try runAndKill(["pack", sampleBundles + "/onboarding", "-o", scratch.path + "/killed", "--font-cache", cache], after: delay * testTimeScale)
        }
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let stale = cache + "/.0123.abcdef.tmp"
        try Data("half an entry".utf8).write(to: URL(fileURLWithPath: stale))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: stale)

        let again = try CLI.run(["pack", sampleBundles + "/onboarding", "-o", scratch.path + "/again", "--font-cache", cache, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let fonts = try #require(try Self.json(again.stdout)["fonts"] as? [String: Any])
        #expect(fonts["rejectedCacheEntries"] as? Int == 0)
        let archive = try #require(try Self.json(again.stdout)["archivePath"] as? String)
        #expect(FileManager.default.contents(atPath: archive) == expected)
        #expect(!FileManager.default.fileExists(atPath: stale))
        // And now every conversion comes from the cache.
        let warm = try Self.json(try CLI.run(["pack", sampleBundles + "/onboarding", "-o", scratch.path + "/warm", "--font-cache", cache, "--json"]).stdout)
        #expect((warm["fonts"] as? [String: Any])?["conversions"] as? Int == 0)
    }
}
