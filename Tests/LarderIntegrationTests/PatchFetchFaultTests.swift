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

/// Revisions 1 and 2 of ``PatchFetchTests``' flow published to an origin folder, for tests that
/// serve it through a ``FaultOrigin`` misbehaving on the patch or its index.
final class PublishedPatchFlow: Sendable {
    let work: Workspace
    let root: String
    let first: PackReport
    let second: PackReport
    /// The one patch revision 2 has: the script's, against revision 1's.
    let patch: PatchIndex.Entry

    init() throws {
        work = try Workspace()
        (first, second) = try PatchFetchTests.Revisions.pack(in: work)
        root = work.path + "/origin"
        let journey = JourneyPublication(id: "patchflow", key: nil)
        _ = try OriginPublisher.publish(archives: [first.archivePath], to: root, journey: journey)
        _ = try OriginPublisher.publish(archives: [second.archivePath], to: root, journey: journey)
        let index = try PatchIndex(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + PatchIndex.path(bundle: second.bundleDigest)))))
        guard index.entries.count == 1, let patch = index.entries.first else { throw IntegrationError("revision 2 has patches \(index.entries)") }
        self.patch = patch
    }

    /// The request paths of the index and of the patch.
    var indexPath: String { "/" + PatchIndex.path(bundle: second.bundleDigest) }
    var patchPath: String { "/" + PatchIndex.path(of: patch.patch) }

    func bytes(at path: String) -> [UInt8] { (try? Array(Data(contentsOf: URL(fileURLWithPath: root + path)))) ?? [] }

    /// A cache holding revision 1, fetched from `origin`.
    func cacheWithFirst(from origin: URL, name: String = "cache") async throws -> LarderCache {
        let cache = try work.cache(name)
        #expect(try await BundleFetcher(cache: cache, origin: origin).fetch(first.bundleDigest).source == .archive)
        return cache
    }

    /// Revision 2 is in `cache` with the edited script, revision 1 still reads, and the cache verifies.
    func expectSecondInstalled(_ cache: LarderCache) throws {
        let lease = try cache.lease(second.bundleDigest)
        #expect(String(decoding: try lease.data(at: "MathJax.js"), as: UTF8.self).contains("// revision 2: one line more"))
        lease.release()
        try expectFirstIntact(cache)
    }

    /// Revision 1 still reads its script, and the cache verifies.
    func expectFirstIntact(_ cache: LarderCache) throws {
        let lease = try cache.lease(first.bundleDigest)
        #expect(!String(decoding: try lease.data(at: "MathJax.js"), as: UTF8.self).contains("// revision 2"))
        lease.release()
        #expect(try cache.verify().isClean)
    }
}

/// A patch server that stalls or drips (over real HTTP from a ``FaultOrigin`` on 127.0.0.1): the
/// patch, or the patch index, answered with headers and then nothing, or a byte every 300 ms.
/// The update ends within its stall limit with the script fetched whole, or, when the deadline is
/// shorter than that limit, with a `timeout`; nothing wrong is installed and the cache verifies.
@Suite(.serialized) struct PatchFetchFaultTests {
    enum Fault: String, CaseIterable, Sendable {
        case patchStalls, patchDrips, indexStalls, indexDrips

        func answer(_ request: FaultOrigin.Request, _ flow: PublishedPatchFlow) -> FaultOrigin.Answer? {
            switch self {
            case .patchStalls where request.path == flow.patchPath:
                .headersThenStall(status: 200, headers: [], contentLength: Int(flow.patch.size))
            case .patchDrips where request.path == flow.patchPath:
                .drip(status: 200, headers: [], body: flow.bytes(at: flow.patchPath), bytesPerSecond: 3)
            case .indexStalls where request.path == flow.indexPath:
                .headersThenStall(status: 200, headers: [("Content-Type", "application/json")], contentLength: 4_000)
            case .indexDrips where request.path == flow.indexPath:
                .drip(status: 200, headers: [], body: flow.bytes(at: flow.indexPath), bytesPerSecond: 3)
            default: nil
            }
        }

        /// The path that misbehaves.
        func path(_ flow: PublishedPatchFlow) -> String {
            switch self {
            case .patchStalls, .patchDrips: flow.patchPath
            case .indexStalls, .indexDrips: flow.indexPath
            }
        }
    }

    /// A fault origin serving `flow`, misbehaving as `fault` says while `faulty` holds.
    static func serve(_ flow: PublishedPatchFlow, _ fault: Fault, faulty: Locked<Bool>) throws -> FaultOrigin {
        try FaultOrigin { request in
            if faulty.withLock({ $0 }), let answer = fault.answer(request, flow) { return answer }
            return .file(root: flow.root)
        }
    }

    /// What the update may take per request: a 2 s limit, and under 100 B/s over 1 s is too slow;
    /// 30 s for the whole update. Scaled for a loaded or instrumented run (`scaledForTests`):
    /// the faults stall for ever or drip at 3 B/s, so the stalls stay stalls at any scale, while
    /// the healthy requests get the time such a run needs (the ThreadSanitizer pass saw the
    /// manifest miss an unscaled 30 s deadline).
    static func configuration(deadline: Duration = .seconds(30)) -> BundleFetcher.Configuration {
        var configuration = BundleFetcher.Configuration.patching
        configuration.requestTimeout = Duration.seconds(2).scaledForTests
        configuration.minimumSpeed = .init(bytesPerSecond: 100, window: Duration.seconds(1).scaledForTests)
        configuration.attempts = 3
        configuration.deadline = deadline.scaledForTests
        return configuration
    }

    @Test(arguments: Fault.allCases)
    func aStalledOrDrippingPatchServerCostsOneStallAndTheScriptComesWhole(_ fault: Fault) async throws {
        let flow = try PublishedPatchFlow()
        let faulty = Locked(true)
        let origin = try Self.serve(flow, fault, faulty: faulty)
        let cache = try await flow.cacheWithFirst(from: origin.base)
        let configuration = Self.configuration()
        let fetcher = BundleFetcher(cache: cache, origin: origin.base, configuration: configuration)
        let outcome = await value(within: configuration.deadline + .seconds(10)) { () -> Result<FetchResult, TransportError> in
            do throws(TransportError) { return .success(try await fetcher.fetch(flow.second.bundleDigest)) } catch { return .failure(error) }
        }
        let result = try #require(outcome, "the update hung past its deadline").get()
        #expect(result.patchesApplied == 0 && result.patchFallbacks == 1, "\(result)")
        switch fault {
        case .patchStalls, .patchDrips:
            // The index promised a patch, so the objects path; the script then came whole.
            #expect(result.source == .objects)
            #expect(result.bytesByKind.objects > 10_000, "the script came whole: \(result.bytesByKind)")
        case .indexStalls, .indexDrips:
            // The cache holds under 5% of the bundle and no index said otherwise: the archive
            // (FetchRoute), with the script in it.
            #expect(result.source == .archive)
            #expect(result.bytesByKind.archive > 10_000, "the archive came whole: \(result.bytesByKind)")
        }
        // The fallback is the retry: a stalled patch or index is asked for once, not once per
        // attempt (3 × the stall limit, 45 s with the defaults, before the script comes whole).
        // Counted, not timed: a loaded machine stretches one stall as much as three.
        let asked = origin.requests.filter { $0.path == fault.path(flow) }.count
        #expect(asked == 1, "\(fault.path(flow)) was asked for \(asked) times")
        try flow.expectSecondInstalled(cache)
        #expect(try FileManager.default.contentsOfDirectory(atPath: flow.work.path + "/cache/downloads").filter { !$0.hasSuffix(".lock") }.isEmpty)
        try await offThePool { origin.stop() }
    }

    /// A deadline shorter than the stall limit: the stalled patch takes it all, so the update
    /// ends at its deadline with a `timeout` (the whole script has no time left), installs
    /// nothing, and a later fetch from a healthy origin makes the script from the patch.
    @Test(arguments: [Fault.patchStalls, .indexStalls])
    func aStallLongerThanTheDeadlineIsATimeoutAndInstallsNothing(_ fault: Fault) async throws {
        let flow = try PublishedPatchFlow()
        let faulty = Locked(true)
        let origin = try Self.serve(flow, fault, faulty: faulty)
        let cache = try await flow.cacheWithFirst(from: origin.base)
        var configuration = Self.configuration(deadline: .seconds(2))
        configuration.requestTimeout = Duration.seconds(20).scaledForTests
        configuration.minimumSpeed = nil
        let fetcher = BundleFetcher(cache: cache, origin: origin.base, configuration: configuration)
        let outcome = await value(within: configuration.deadline + .seconds(10)) { () -> Result<FetchResult, TransportError> in
            do throws(TransportError) { return .success(try await fetcher.fetch(flow.second.bundleDigest)) } catch { return .failure(error) }
        }
        let failed = try #require(outcome, "the update hung past its deadline")
        guard case .failure(let error) = failed else { Issue.record("the update succeeded: \(failed)"); return }
        #expect(error.code == .timeout, "\(error)")
        #expect(try cache.bundle(flow.second.bundleDigest)?.complete != true)
        try flow.expectFirstIntact(cache)

        faulty.withLock { $0 = false }
        let later = try await BundleFetcher(cache: cache, origin: origin.base, configuration: Self.configuration()).fetch(flow.second.bundleDigest)
        #expect(later.patchesApplied == 1 && later.patchFallbacks == 0, "\(later)")
        try flow.expectSecondInstalled(cache)
        try await offThePool { origin.stop() }
    }
}
