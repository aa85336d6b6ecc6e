import Foundation
import LarderCache
import LarderFetch
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// Which way a bundle comes over real HTTP from nginx (Docs/Fetching.md): the objects only when
/// the cache (and patches) save at least 5% of the bundle's bytes, the archive otherwise.
@Suite(.serialized) struct FetchRouteOriginTests {
    /// A 1 MB bundle of 40 text-like assets and one small image, and a bundle holding only
    /// that image (and the page runtime, as every bundle with a page does).
    struct Bundles {
        let origin: Origin
        let work: Workspace
        let big: PackReport
        let smallSeed: PackReport
        let halfSeed: PackReport

        init() throws {
            origin = try Origin()
            work = try Workspace()
            let source = work.path + "/big"
            try FileManager.default.createDirectory(atPath: source + "/assets", withIntermediateDirectories: true)
            let words = ["larder", "bundle", "origin", "object", "archive", "fetch", "cache", "patch", "journey", "paywall", "font", "page"]
            var state: UInt64 = 7
            var links = ""
            var assets: [String] = []
            for index in 0..<40 {
                var text = ""
                while text.utf8.count < 25_000 {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    text += words[Int(state >> 33) % words.count] + (state >> 40 & 7 == 0 ? ".\n" : " ")
                }
                let name = "assets/a\(index).txt"
                try text.write(toFile: source + "/" + name, atomically: true, encoding: .utf8)
                assets.append(name)
                links += "<link rel=\"preload\" href=\"\(name)\" as=\"fetch\">\n"
            }
            let icon = #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>"#
            try icon.write(toFile: source + "/icon.svg", atomically: true, encoding: .utf8)
            try "<!doctype html>\n\(links)<img src=\"icon.svg\">\n".write(toFile: source + "/index.html", atomically: true, encoding: .utf8)
            big = try work.pack(source)
            smallSeed = try Self.seed(in: work, name: "small", from: source, files: ["icon.svg"])
            halfSeed = try Self.seed(in: work, name: "half", from: source, files: assets.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
            try origin.publish([big.archivePath, smallSeed.archivePath, halfSeed.archivePath])
        }

        /// A bundle of `files` of the big one's source and a page of its own.
        static func seed(in work: Workspace, name: String, from source: String, files: [String]) throws -> PackReport {
            let folder = work.path + "/seed-" + name
            try FileManager.default.createDirectory(atPath: folder + "/assets", withIntermediateDirectories: true)
            var links = ""
            for file in files {
                try FileManager.default.copyItem(atPath: source + "/" + file, toPath: folder + "/" + file)
                links += "<link rel=\"preload\" href=\"\(file)\" as=\"fetch\">\n"
            }
            try "<!doctype html><p>seed \(name)</p>\n\(links)".write(toFile: folder + "/index.html", atomically: true, encoding: .utf8)
            return try work.pack(folder)
        }

        /// The share of the big bundle's raw bytes a cache holding `seed` has.
        func share(heldBy seed: PackReport) throws -> Double {
            let bundle = try #require(try BundleVerifier.verify(archiveAt: big.archivePath).manifest)
            let held = Set(try #require(try BundleVerifier.verify(archiveAt: seed.archivePath).manifest).files.map(\.digest))
            var sizes: [Digest: Int64] = [:]
            for file in bundle.files { sizes[file.digest] = file.size }
            let cached = sizes.filter { held.contains($0.key) }.values.reduce(0, +)
            return Double(cached) / Double(sizes.values.reduce(0, +))
        }
    }

    @Test func oneSmallCachedObjectTakesTheArchive() async throws {
        let setup = try Bundles()
        #expect(try setup.share(heldBy: setup.smallSeed) < 0.05)
        let cache = try setup.work.cache()
        _ = try cache.install(archiveAt: setup.smallSeed.archivePath)
        try setup.origin.clearAccessLog()
        let result = try await BundleFetcher(cache: cache, origin: setup.origin.base).fetch(setup.big.bundleDigest)
        #expect(result.source == .archive)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: setup.origin.root + "/bundles/\(setup.big.bundleDigest.hex)/manifest.json"))
        #expect(result.bytesDownloaded <= setup.big.archiveSize + Int64(manifest.count), "\(result.bytesByKind)")
        #expect(result.requests == 2)
        let log = setup.origin.accessLog
        #expect(log.filter { $0.contains(" /objects/") }.isEmpty && log.count == 2, "\(log)")
        #expect(try cache.verify().isClean)
    }

    @Test func halfCachedTakesTheObjects() async throws {
        let setup = try Bundles()
        #expect(try setup.share(heldBy: setup.halfSeed) > 0.4)
        let cache = try setup.work.cache()
        _ = try cache.install(archiveAt: setup.halfSeed.archivePath)
        let result = try await BundleFetcher(cache: cache, origin: setup.origin.base).fetch(setup.big.bundleDigest)
        #expect(result.source == .objects)
        #expect(result.bytesDownloaded * 10 < setup.big.archiveSize * 7, "\(result.bytesByKind) of \(setup.big.archiveSize)")
        #expect(try cache.verify().isClean)
    }

    /// With patches on and too little cached, the index is read to choose the route; the origin
    /// has none (404), so the archive comes, and the read is in its result, once.
    @Test func anIndexReadToChooseIsCountedWithTheArchive() async throws {
        let setup = try Bundles()
        let cache = try setup.work.cache()
        _ = try cache.install(archiveAt: setup.smallSeed.archivePath)
        try setup.origin.clearAccessLog()
        let result = try await BundleFetcher(cache: cache, origin: setup.origin.base, configuration: .patching).fetch(setup.big.bundleDigest)
        #expect(result.source == .archive)
        #expect(result.requests == 3 && result.patchesApplied == 0 && result.patchFallbacks == 0)
        let kinds = result.bytesByKind
        #expect(kinds.objects == 0 && kinds.manifest + kinds.archive + kinds.patches == result.bytesDownloaded, "\(kinds)")
        let log = setup.origin.accessLog
        #expect(log.filter { $0.contains("/patches.json") }.count == 1 && log.filter { $0.contains(".tar.gz") }.count == 1, "\(log)")
        #expect(log.count == 3, "\(log)")
    }

    /// An update whose cached share alone is under 5% (a 63 kB script edited, a 200 kB blob
    /// replaced): the script's patch makes up the share, so the objects come, the index read
    /// once.
    @Test func aPatchMakesUpTheShare() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let source = work.path + "/flow"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try #"{"name": "routeflow", "entry": "index.html", "renderer": {"protocol": 1, "capabilities": ["prepare", "visibility"]}}"#
            .write(toFile: source + "/larder.json", atomically: true, encoding: .utf8)
        try "<!doctype html><script src=\"MathJax.js\"></script><img src=\"blob.png\">\n".write(
            toFile: source + "/index.html", atomically: true, encoding: .utf8)
        let script = try String(contentsOfFile: "/usr/share/javascript/mathjax/MathJax.js", encoding: .utf8)
        var state: UInt64 = 11
        func blob() -> Data {
            Data((0..<200_000).map { _ -> UInt8 in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: state >> 33)
            })
        }
        try script.write(toFile: source + "/MathJax.js", atomically: true, encoding: .utf8)
        try blob().write(to: URL(fileURLWithPath: source + "/blob.png"))
        let first = try work.pack(source)
        var lines = script.components(separatedBy: "\n")
        lines.insert("// revision 2: one line more", at: lines.count / 2)
        try lines.joined(separator: "\n").write(toFile: source + "/MathJax.js", atomically: true, encoding: .utf8)
        try blob().write(to: URL(fileURLWithPath: source + "/blob.png"))
        let second = try work.pack(source)
        let journey = JourneyPublication(id: "routeflow", key: nil)
        try origin.publish([first.archivePath], journey: journey)
        try origin.publish([second.archivePath], journey: journey)

        // Without patches, the cached share alone (the page and the runtime) takes the archive.
        let plain = try work.cache("plain")
        _ = try plain.install(archiveAt: first.archivePath)
        #expect(try await BundleFetcher(cache: plain, origin: origin.base).fetch(second.bundleDigest).source == .archive)

        let cache = try work.cache()
        let fetcher = BundleFetcher(cache: cache, origin: origin.base, configuration: .patching)
        #expect(try await fetcher.fetch(first.bundleDigest).source == .archive)
        try origin.clearAccessLog()
        let update = try await fetcher.fetch(second.bundleDigest)
        #expect(update.source == .objects, "\(update)")
        #expect(update.patchesApplied >= 1 && update.patchFallbacks == 0, "\(update)")
        let log = origin.accessLog
        #expect(log.filter { $0.contains("/patches.json") }.count == 1, "\(log)")
        #expect(log.filter { $0.contains(".tar.gz") }.isEmpty, "\(log)")
        let lease = try cache.lease(second.bundleDigest)
        #expect(String(decoding: try lease.data(at: "MathJax.js"), as: UTF8.self).contains("// revision 2: one line more"))
        lease.release()
        #expect(try cache.verify().isClean)
    }
}
