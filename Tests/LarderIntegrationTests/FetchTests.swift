import Foundation
import LarderFetch
import LarderSystem
import LarderTestSupport
import LarderCache
import LarderFormat
import LarderPack
import LarderTransport
import Testing

/// Fetching bundles over real HTTP from nginx into a cache.
@Suite(.serialized) struct FetchTests {
    /// A copy of the onboarding sample with one stylesheet edited: a new revision that differs
    /// in exactly one file.
    static func editedOnboarding(in work: Workspace) throws -> String {
        let copy = work.path + "/onboarding-v2"
        try FileManager.default.copyItem(atPath: sampleBundles + "/onboarding", toPath: copy)
        let css = copy + "/css/base.css"
        var text = try String(contentsOfFile: css, encoding: .utf8)
        text += "\n/* revision 2: a warmer accent */\n:root { --accent-2: #ff7a59; }\n"
        try text.write(toFile: css, atomically: true, encoding: .utf8)
        return copy
    }

    @Test func fetchesSamplesThenOnlyTheChangedObject() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let onboarding = try work.pack(sampleBundles + "/onboarding")
        let paywall = try work.pack(sampleBundles + "/paywall")
        let legacy = try work.pack(sampleBundles + "/legacy-prompt")
        try origin.publish([onboarding.archivePath, paywall.archivePath, legacy.archivePath])
        let cache = try work.cache()
        let fetcher = BundleFetcher(cache: cache, origin: origin.base)

        let first = try await fetcher.fetch(onboarding.bundleDigest)
        #expect(first.source == .archive)  // nothing cached: the whole archive
        let second = try await fetcher.fetch(paywall.bundleDigest)
        #expect(second.source == .objects)  // it shares Lato-Regular.latin.woff2 with onboarding
        let third = try await fetcher.fetch(legacy.bundleDigest)
        #expect(third.source == .objects)  // it shares larder.js, the page runtime, with both
        #expect(try await fetcher.fetch(onboarding.bundleDigest).source == .cache)
        #expect(try cache.verify().isClean)
        #expect(try cache.bundles().count == 3)

        // Revision 2 changes one stylesheet: only that object crosses the wire.
        let revised = try work.pack(try Self.editedOnboarding(in: work))
        try origin.publish([revised.archivePath])
        try origin.clearAccessLog()
        let progress = ProgressLog()
        let update = try await fetcher.fetch(revised.bundleDigest) { progress.record($0) }
        #expect(update.source == .objects)
        let requests = origin.accessLog
        #expect(requests.filter { $0.contains(" /objects/") }.count == 1, "\(requests)")
        #expect(requests.filter { $0.contains("/manifest.json") }.count == 1)
        #expect(requests.count == 2)
        #expect(update.bytesDownloaded * 20 < revised.archiveSize, "update moved \(update.bytesDownloaded) of \(revised.archiveSize) bytes")
        #expect(progress.values.last == 1)
        #expect(progress.values == progress.values.sorted())
        let lease = try cache.lease(revised.bundleDigest)
        #expect(String(decoding: try lease.data(at: "css/base.css"), as: UTF8.self).contains("revision 2"))
        #expect(try cache.verify().isClean)
    }

    @Test func aServerThatLiesGetsNothingIntoTheCache() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let onboarding = try work.pack(sampleBundles + "/onboarding")
        let revised = try work.pack(try Self.editedOnboarding(in: work))
        try origin.publish([onboarding.archivePath, revised.archivePath])
        let cache = try work.cache()
        let fetcher = BundleFetcher(cache: cache, origin: origin.base)
        _ = try await fetcher.fetch(onboarding.bundleDigest)

        // Replace the changed object on the server with other bytes under the same name.
        let manifest = try #require(try BundleVerifier.verify(archiveAt: revised.archivePath).manifest)
        let changed = try #require(manifest.file(at: "css/base.css")).digest
        try Data("body { background: red }".utf8).write(to: URL(fileURLWithPath: origin.root + "/objects/" + changed.hex))
        try FileManager.default.removeItem(atPath: origin.root + "/objects/" + changed.hex + ".gz")
        let before = try cache.bundles()
        do {
            _ = try await fetcher.fetch(revised.bundleDigest)
            Issue.record("a lying server's bytes were accepted")
        } catch {
            #expect(error.code == .digestMismatch)
        }
        #expect(try cache.bundles() == before)
        #expect(try cache.verify().isClean)

        // A manifest that does not match its digest is refused the same way.
        try Data("{}".utf8).write(to: URL(fileURLWithPath: origin.root + "/bundles/\(revised.bundleDigest.hex)/manifest.json"))
        do {
            _ = try await fetcher.fetch(revised.bundleDigest)
            Issue.record("a forged manifest was accepted")
        } catch {
            #expect(error.code == .digestMismatch)
        }
    }

    @Test func aDroppedConnectionResumesAndNeverInstallsPartialData() async throws {
        let origin = try Origin()
        let work = try Workspace()
        // A bundle of incompressible files, served throttled (/slow/) so a restart lands mid-download.
        let source = work.path + "/big"
        try FileManager.default.createDirectory(atPath: source + "/media", withIntermediateDirectories: true)
        var state: UInt64 = 99
        var links = ""
        for index in 0..<6 {
            let bytes = (0..<400_000).map { _ -> UInt8 in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: state >> 33)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: source + "/media/clip\(index).png"))
            links += "<img src=\"media/clip\(index).png\">"
        }
        try Data("<!doctype html>\(links)".utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        let big = try work.pack(source)
        try origin.publish([big.archivePath])
        let cache = try work.cache()
        var configuration = BundleFetcher.Configuration()
        configuration.attempts = 8
        let fetcher = BundleFetcher(
            cache: cache, origin: origin.base.appendingPathComponent("slow/"), configuration: configuration)
        let fetch = Task { try await fetcher.fetch(big.bundleDigest) }

        // Wait (bounded) until part of the archive arrived (nginx sends 256 KiB/s after a
        // first burst), then drop every connection.
        let partial = cache.root + "/downloads/\(big.bundleDigest.hex).tar.gz.part"
        for _ in 0..<200 where fileSize(partial) < 600_000 {
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(try cache.bundle(big.bundleDigest) == nil)  // nothing installed part-way
        try origin.restart()
        let result = try await fetch.value
        #expect(result.source == .archive)
        #expect(result.requests > 1)
        // nginx logs a request when it ends: the one the restart cut is not there, and every
        // logged one resumed past what had arrived.
        let ranges = origin.accessLog.filter { $0.contains(".tar.gz") }.compactMap { line -> Int? in
            guard let range = line.range(of: "\"bytes=") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(!ranges.isEmpty)
        #expect(ranges.allSatisfy { $0 >= 600_000 }, "\(ranges)")
        #expect(try cache.bundle(big.bundleDigest)?.complete == true)
        #expect(try cache.verify().isClean)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.root + "/downloads").isEmpty)
    }
}

/// A file's size in bytes, 0 when it is missing.
func fileSize(_ path: String) -> Int64 {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : 0
}

/// Progress values as a fetch reports them.
final class ProgressLog: Sendable {
    private let recorded = Locked<[Double]>([])
    func record(_ value: Double) { recorded.withLock { $0.append(value) } }
    var values: [Double] { recorded.withLock { $0 } }
}

/// Each kind of transport failure comes back as its own typed error, and concurrent fetches of
/// one bundle share the work.
@Suite(.serialized) struct FetchErrorTests {
    @Test func concurrentFetchesOfOneBundleShareOneDownload() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let paywall = try work.pack(sampleBundles + "/paywall")
        try origin.publish([paywall.archivePath])
        let cache = try work.cache()
        let fetcher = BundleFetcher(cache: cache, origin: origin.base)
        async let first = fetcher.fetch(paywall.bundleDigest)
        async let second = fetcher.fetch(paywall.bundleDigest)
        let (a, b) = try await (first, second)
        #expect(a == b)
        #expect(origin.accessLog.filter { $0.contains("/manifest.json") }.count == 1)
        #expect(try cache.bundles().count == 1)
    }

    @Test func anUnknownBundleIsAnUnexpectedStatus() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let fetcher = BundleFetcher(cache: try work.cache(), origin: origin.base)
        do {
            _ = try await fetcher.fetch(SHA256Hasher.hash(Array("not published".utf8)))
            Issue.record("fetched a bundle that was never published")
        } catch {
            #expect(error.code == .unexpectedStatus)
            #expect(error.status == 404)
        }
    }

    @Test func aManifestThatDoesNotParseIsAMalformedDocument() async throws {
        let origin = try Origin()
        let work = try Workspace()
        // Bytes that hash to the digest asked for, but are no manifest.
        let bytes = Array("{\"format\":1}".utf8)
        let digest = SHA256Hasher.hash(bytes)
        try FileManager.default.createDirectory(atPath: origin.root + "/bundles/" + digest.hex, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: origin.root + "/bundles/\(digest.hex)/manifest.json"))
        let fetcher = BundleFetcher(cache: try work.cache(), origin: origin.base)
        do {
            _ = try await fetcher.fetch(digest)
            Issue.record("accepted a malformed manifest")
        } catch {
            #expect(error.code == .malformedDocument)
        }
    }

    @Test func aResponseSlowerThanTheDeadlineIsATimeout() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let onboarding = try work.packWithFontsAsWritten(sampleBundles + "/onboarding")  // 760 kB
        try origin.publish([onboarding.archivePath])
        var configuration = BundleFetcher.Configuration()
        // The 770 kB archive takes about 2 s at 256 KiB/s; the fetch may take 1 s.
        configuration.deadline = .seconds(1)
        let cache = try work.cache()
        let fetcher = BundleFetcher(
            cache: cache, origin: origin.base.appendingPathComponent("slow/"),
            configuration: configuration)
        do {
            _ = try await fetcher.fetch(onboarding.bundleDigest)
            Issue.record("a throttled download finished inside 1 s")
        } catch {
            #expect(error.code == .timeout)
        }
        #expect(try cache.bundles().isEmpty)
        // What arrived (if anything did in that second on a busy machine) is kept for the next
        // fetch to resume: never the whole archive. SlowLinkTests shows the resuming.
        #expect(fileSize(cache.root + "/downloads/\(onboarding.bundleDigest.hex).tar.gz.part") < onboarding.archiveSize)
    }

    @Test func anUnreachableOriginIsAConnectionError() async throws {
        let work = try Workspace()
        // A port nothing listens on: take a free one from an origin, then stop it.
        let base: URL
        do {
            let origin = try Origin()
            base = origin.base
        }
        var configuration = BundleFetcher.Configuration()
        configuration.attempts = 2
        let fetcher = BundleFetcher(
            cache: try work.cache(), origin: base, configuration: configuration)
        do {
            _ = try await fetcher.fetch(SHA256Hasher.hash(Array("x".utf8)))
            Issue.record("fetched from a stopped origin")
        } catch {
            #expect(error.code == .connection)
            #expect(error.isRetryable)
        }
    }
}
