import Foundation
import LarderCache
import LarderFetch
import LarderFormat
import LarderSystem
import LarderTestSupport
import LarderTransport
import Testing

/// A disk that fills up while a patched update is on its way (the cache on a small tmpfs; the
/// origin, a ``FaultOrigin`` on 127.0.0.1, fills it the moment the patch is asked for, after the
/// fetch checked its space): writing the script made from the patch runs out of space.
@Suite(.serialized, .enabled(if: Tmpfs.isAvailable, "needs root to mount a tmpfs")) struct PatchDiskFullTests {
    @Test func aFullDiskWhileThePatchedScriptIsWrittenIsItsOwnErrorAndARetryPatches() async throws {
        let flow = try PublishedPatchFlow()
        let disk = try Tmpfs(megabytes: 16)
        let fills = Locked(true)
        let (patchPath, root) = (flow.patchPath, flow.root)
        let origin = try FaultOrigin { request in
            if request.path == patchPath, fills.withLock({ $0 }) {
                // 16 kB left for the 63 kB script: another app took the rest meanwhile.
                do { try disk.fill(leaving: 16_384) } catch { return .respond(status: 500, body: Array("\(error)".utf8)) }
            }
            return .file(root: root)
        }
        let cachePath = disk.path + "/cache"
        let cache = try LarderCache(at: cachePath)
        #expect(try await BundleFetcher(cache: cache, origin: origin.base).fetch(flow.first.bundleDigest).source == .archive)
        let fetcher = BundleFetcher(cache: cache, origin: origin.base, configuration: .patching)

        let outcome = await value(within: .seconds(30)) { () -> Result<FetchResult, TransportError> in
            do throws(TransportError) { return .success(try await fetcher.fetch(flow.second.bundleDigest)) } catch { return .failure(error) }
        }
        let failed = try #require(outcome, "the update hung")
        guard case .failure(let error) = failed else { Issue.record("the update succeeded on a full disk: \(failed)"); return }
        #expect(error.code == .diskFull, "\(error)")
        #expect(disk.free <= 16_384, "the filler was not made: \(disk.free) bytes free")
        // The whole script needs the same space on the same disk: it is not downloaded to fail
        // in turn.
        let asked = origin.requests.map(\.path)
        #expect(asked.filter { $0 == patchPath }.count == 1, "\(asked)")
        #expect(!asked.contains("/objects/\(flow.patch.to.hex)"), "\(asked)")
        // Nothing half-installed: no partial file, no staging, revision 2 absent, revision 1 reads.
        #expect(try FileManager.default.contentsOfDirectory(atPath: cachePath + "/downloads").filter { !$0.hasSuffix(".lock") }.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cachePath + "/staging").isEmpty)
        #expect(try cache.bundle(flow.second.bundleDigest)?.complete != true)
        try flow.expectFirstIntact(cache)

        fills.withLock { $0 = false }
        try disk.removeFillers()
        let later = try await fetcher.fetch(flow.second.bundleDigest)
        #expect(later.patchesApplied == 1 && later.patchFallbacks == 0, "\(later)")
        #expect(later.bytesByKind.objects == 0, "\(later.bytesByKind)")
        try flow.expectSecondInstalled(cache)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cachePath + "/downloads").isEmpty)
        try await offThePool { origin.stop() }
    }
}
