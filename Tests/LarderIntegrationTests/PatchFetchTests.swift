import Foundation
import LarderCache
import LarderFetch
import LarderFormat
import LarderPack
import LarderPublish
import LarderSystem
import LarderTestSupport
import LarderTransport
import Testing

/// Updates that move patches instead of objects (Docs/Patches.md), over real HTTP from nginx on
/// 127.0.0.1: a journey published twice, the second revision fetched into a cache holding the
/// first; and every way a patch can fail falling back to the whole object, with the right bytes
/// installed and the fallback counted.
@Suite(.serialized) struct PatchFetchTests {
    /// A flow around Debian's MathJax.js (63 kB): revision 1, and revision 2 with one comment
    /// line inserted in the script.
    struct Revisions {
        let origin: Origin
        let work: Workspace
        let first: PackReport
        let second: PackReport
        let script: Manifest.File
        let style: Manifest.File
        let oldScript: Manifest.File

        init() throws {
            origin = try Origin()
            work = try Workspace()
            (first, second) = try Self.pack(in: work)
            let old = try #require(try BundleVerifier.verify(archiveAt: first.archivePath).manifest)
            let new = try #require(try BundleVerifier.verify(archiveAt: second.archivePath).manifest)
            oldScript = try #require(old.file(at: "MathJax.js"))
            self.script = try #require(new.file(at: "MathJax.js"))
            style = try #require(new.file(at: "style.css"))
            let journey = JourneyPublication(id: "patchflow", key: nil)
            try origin.publish([first.archivePath], journey: journey)
            try origin.publish([second.archivePath], journey: journey)
        }

        /// Packs revision 1 and revision 2 of the flow in `work`.
        static func pack(in work: Workspace) throws -> (PackReport, PackReport) {
            let source = work.path + "/flow"
            try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
            try #"{"name": "patchflow", "entry": "index.html", "renderer": {"protocol": 1, "capabilities": ["prepare", "visibility"]}}"#
                .write(toFile: source + "/larder.json", atomically: true, encoding: .utf8)
            try """
            <!doctype html><html><head><link rel="stylesheet" href="style.css"><script src="MathJax.js"></script></head>
            <body><p>Price: $4.99</p></body></html>
            """.write(toFile: source + "/index.html", atomically: true, encoding: .utf8)
            try "body { color: #333; }\n".write(toFile: source + "/style.css", atomically: true, encoding: .utf8)
            let script = try String(contentsOfFile: "/usr/share/javascript/mathjax/MathJax.js", encoding: .utf8)
            try script.write(toFile: source + "/MathJax.js", atomically: true, encoding: .utf8)
            let first = try work.pack(source)
            var lines = script.components(separatedBy: "\n")
            lines.insert("// revision 2: one line more", at: lines.count / 2)
            try lines.joined(separator: "\n").write(toFile: source + "/MathJax.js", atomically: true, encoding: .utf8)
            return (first, try work.pack(source))
        }

        /// A cache holding revision 1, fetched with patches on.
        func cacheWithFirst() async throws -> (LarderCache, BundleFetcher) {
            let cache = try work.cache()
            let fetcher = BundleFetcher(cache: cache, origin: origin.base, configuration: .patching)
            #expect(try await fetcher.fetch(first.bundleDigest).source == .archive)
            return (cache, fetcher)
        }

        var index: PatchIndex {
            get throws { try PatchIndex(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: origin.root + "/" + PatchIndex.path(bundle: second.bundleDigest))))) }
        }

        /// The second revision is in the cache with the edited script, and the cache verifies.
        func expectSecondInstalled(_ cache: LarderCache) throws {
            let lease = try cache.lease(second.bundleDigest)
            #expect(String(decoding: try lease.data(at: "MathJax.js"), as: UTF8.self).contains("// revision 2: one line more"))
            lease.release()
            #expect(try cache.verify().isClean)
        }
    }

    @Test func aOneLineChangeOfA63kBScriptMovesAPatch() async throws {
        let setup = try Revisions()
        let index = try setup.index
        #expect(index.entries.map(\.to) == [setup.script.digest], "only the script changed: \(index.entries)")
        #expect(index.entries.first?.from == setup.oldScript.digest)
        let patch = try #require(index.entries.first)
        #expect(FileManager.default.fileExists(atPath: setup.origin.root + "/" + PatchIndex.path(of: patch.patch)))

        let (cache, fetcher) = try await setup.cacheWithFirst()
        try setup.origin.clearAccessLog()
        let update = try await fetcher.fetch(setup.second.bundleDigest)
        #expect(update.source == .objects)
        #expect(update.patchesApplied == 1 && update.patchFallbacks == 0)
        #expect(update.bytesDownloaded <= 2_500, "the update moved \(update.bytesDownloaded) bytes: \(update.bytesByKind)")
        #expect(update.bytesByKind.objects == 0 && update.bytesByKind.archive == 0)
        #expect(update.bytesByKind.manifest + update.bytesByKind.patches == update.bytesDownloaded)
        let log = setup.origin.accessLog
        #expect(log.filter { $0.contains(" /objects/") }.isEmpty, "\(log)")
        #expect(log.filter { $0.contains(" /patches/") }.count == 1, "\(log)")
        try setup.expectSecondInstalled(cache)
    }

    @Test func aDamagedPatchFallsBackToTheObject() async throws {
        let setup = try Revisions()
        let patch = try #require(try setup.index.entries.first)
        let path = setup.origin.root + "/" + PatchIndex.path(of: patch.patch)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (cache, fetcher) = try await setup.cacheWithFirst()
        let update = try await fetcher.fetch(setup.second.bundleDigest)
        #expect(update.patchesApplied == 0 && update.patchFallbacks == 1)
        #expect(update.bytesByKind.objects > 10_000, "the script came whole: \(update.bytesByKind)")
        #expect(update.bytesByKind.patches > 0)
        try setup.expectSecondInstalled(cache)
    }

    @Test func aLyingIndexFallsBackToTheObject() async throws {
        let setup = try Revisions()
        let real = try #require(try setup.index.entries.first)
        // The real patch, claimed to apply to the stylesheet (which the cache holds): it decodes
        // to other bytes or not at all, never to the script.
        let lie = PatchIndex(entries: [
            PatchIndex.Entry(from: setup.style.digest, fromSize: setup.style.size, to: setup.script.digest, patch: real.patch, size: real.size)
        ])
        try Data(lie.bytes).write(to: URL(fileURLWithPath: setup.origin.root + "/" + PatchIndex.path(bundle: setup.second.bundleDigest)))
        let (cache, fetcher) = try await setup.cacheWithFirst()
        let update = try await fetcher.fetch(setup.second.bundleDigest)
        #expect(update.patchesApplied == 0 && update.patchFallbacks == 1)
        try setup.expectSecondInstalled(cache)
    }

    @Test func aMissingPatchFallsBackToTheObject() async throws {
        let setup = try Revisions()
        let patch = try #require(try setup.index.entries.first)
        try FileManager.default.removeItem(atPath: setup.origin.root + "/" + PatchIndex.path(of: patch.patch))
        let (cache, fetcher) = try await setup.cacheWithFirst()
        let update = try await fetcher.fetch(setup.second.bundleDigest)
        #expect(update.patchesApplied == 0 && update.patchFallbacks == 1)
        try setup.expectSecondInstalled(cache)
    }

    @Test func aBaseGoneFromTheCacheFallsBackToTheObject() async throws {
        let setup = try Revisions()
        let (cache, fetcher) = try await setup.cacheWithFirst()
        // The old script's file disappears under the cache (a cleaner, a damaged disk).
        let hex = setup.oldScript.digest.hex
        try FileManager.default.removeItem(atPath: "\(setup.work.path)/cache/objects/\(hex.prefix(2))/\(hex.dropFirst(2))")
        let update = try await fetcher.fetch(setup.second.bundleDigest)
        #expect(update.patchesApplied == 0 && update.patchFallbacks == 1)
        let lease = try cache.lease(setup.second.bundleDigest)
        #expect(String(decoding: try lease.data(at: "MathJax.js"), as: UTF8.self).contains("// revision 2: one line more"))
    }

    @Test func aDamagedIndexIsOneFallbackAndEveryObjectComesWhole() async throws {
        let setup = try Revisions()
        try Data("{\"format\":\"zstd\",\"patches\":[".utf8).write(
            to: URL(fileURLWithPath: setup.origin.root + "/" + PatchIndex.path(bundle: setup.second.bundleDigest)))
        let (cache, fetcher) = try await setup.cacheWithFirst()
        try setup.origin.clearAccessLog()
        let update = try await fetcher.fetch(setup.second.bundleDigest)
        #expect(update.patchesApplied == 0 && update.patchFallbacks == 1)
        #expect(setup.origin.accessLog.filter { $0.contains(" /patches/") }.isEmpty)
        try setup.expectSecondInstalled(cache)
    }

    @Test func aPatchPastTheDevicesLimitsIsNotApplied() async throws {
        let setup = try Revisions()
        let cache = try setup.work.cache()
        var configuration = BundleFetcher.Configuration.patching
        configuration.patchLimits = PatchLimits(maximumPatchBytes: 1 << 20, maximumWindowLog: 27, maximumOutputBytes: 1 << 20)
        _ = try await BundleFetcher(cache: cache, origin: setup.origin.base, configuration: configuration).fetch(setup.first.bundleDigest)
        // The patch's frame asks for a window of the object's size (63 kB, a single-segment
        // frame), past what this device allows: the header says so before anything is decoded.
        configuration.patchLimits.maximumWindowLog = 15
        let update = try await BundleFetcher(cache: cache, origin: setup.origin.base, configuration: configuration).fetch(setup.second.bundleDigest)
        #expect(update.patchesApplied == 0 && update.patchFallbacks == 1, "\(update)")
        try setup.expectSecondInstalled(cache)
    }

    @Test func withPatchesOffNothingChanges() async throws {
        let setup = try Revisions()
        let cache = try setup.work.cache()
        let fetcher = BundleFetcher(cache: cache, origin: setup.origin.base)
        _ = try await fetcher.fetch(setup.first.bundleDigest)
        try setup.origin.clearAccessLog()
        let update = try await fetcher.fetch(setup.second.bundleDigest)
        #expect(update.patchesApplied == 0 && update.patchFallbacks == 0 && update.bytesByKind.patches == 0)
        #expect(setup.origin.accessLog.count == 2, "\(setup.origin.accessLog)")
        try setup.expectSecondInstalled(cache)
    }
}
