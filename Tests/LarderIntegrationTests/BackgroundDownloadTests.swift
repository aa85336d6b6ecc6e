import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderPublish
import LarderSystem
import LarderTestSupport
import LarderTransport
import Testing

/// A bundle download slower than the host's fetch deadline: the preparation falls back at the
/// deadline, the download goes on in the background, and the next launch finds the bundle; a
/// disposed host stops it and keeps what arrived for the next launch to resume.
@Suite struct BackgroundDownloadTests {
    static let key = "pk_background"

    /// An origin serving the journey at once and the archive (onboarding with its fonts as
    /// written, 760 kB) at 30 kB/s: about 25 s, well past the host's fetch deadline.
    static func slowArchiveOrigin(_ work: Workspace, bytesPerSecond: Int = 30_000) throws -> (FaultOrigin, PackReport) {
        let onboarding = try work.packWithFontsAsWritten(sampleBundles + "/onboarding")
        let root = work.path + "/origin"
        _ = try OriginPublisher.publish(archives: [onboarding.archivePath], to: root, journey: JourneyPublication(id: "onboarding", key: key))
        let archive = Array(try Data(contentsOf: URL(fileURLWithPath: onboarding.archivePath)))
        let origin = try FaultOrigin { request in
            request.path.hasSuffix(".tar.gz") ? .drip(status: 200, headers: [], body: archive, bytesPerSecond: bytesPerSecond) : .file(root: root)
        }
        return (origin, onboarding)
    }

    /// The host's fetch deadline bounds the journey document's request too: 10 s, where a
    /// machine busy with the whole suite (CI's) once took more than 3 s to answer it; the
    /// archive still needs more than twice as long.
    static func host(_ origin: FaultOrigin, _ cache: LarderCache, _ work: Workspace) throws -> JourneyHost {
        let configuration = JourneyConfiguration(
            publishableKey: key, journeyID: "onboarding", origin: origin.base, capture: nil, fetchDeadline: .seconds(10))
        return try JourneyHost(configuration: configuration, cache: cache, renderer: HeadlessRenderer(), storage: work.path + "/host")
    }

    @Test func aDownloadThatOutlivesTheDeadlineFinishesForTheNextLaunch() async throws {
        let work = try Workspace()
        let (origin, onboarding) = try Self.slowArchiveOrigin(work)
        let cache = try work.cache()
        let first = try Self.host(origin, cache, work)
        do {
            _ = try await first.prepare()
            Issue.record("a 25 s download was ready within the 10 s deadline")
        } catch {
            #expect(error.code == .unavailable)
        }
        #expect(await first.timeline().contains { $0.kind == .deadline })
        // Still downloading, in the background: wait (bounded) for it to land.
        #expect(try await eventually(within: .seconds(90)) { try cache.bundle(onboarding.bundleDigest)?.complete == true })
        // The background fetch authorises the revision right after the install: let it.
        _ = await eventually(within: .seconds(5)) { await first.timeline().contains { $0.kind == .fetched } }
        await first.dispose()

        let next = try Self.host(origin, cache, work)
        let prepared = try await next.prepare()
        #expect(prepared.bundle == onboarding.bundleDigest)
        await next.dispose()
        #expect(origin.requests.filter { $0.path.hasSuffix(".tar.gz") }.count == 1)
        try await offThePool { origin.stop() }
    }

    /// An origin serving the journey at once and the first 192 KiB of the archive, then a byte
    /// every 100 ms: the download is under way but cannot finish, however late a busy machine
    /// wakes the test.
    static func stallingArchiveOrigin(_ work: Workspace) throws -> (FaultOrigin, PackReport) {
        let onboarding = try work.packWithFontsAsWritten(sampleBundles + "/onboarding")
        let root = work.path + "/origin"
        _ = try OriginPublisher.publish(archives: [onboarding.archivePath], to: root, journey: JourneyPublication(id: "onboarding", key: key))
        let archive = Array(try Data(contentsOf: URL(fileURLWithPath: onboarding.archivePath)))
        let origin = try FaultOrigin { request in
            guard request.path.hasSuffix(".tar.gz") else { return .file(root: root) }
            let sent = Locked(0)
            return .stream(status: 200, headers: [], contentLength: Int64(archive.count)) {
                if sent.withLock({ $0 >= 192 * 1024 }) { usleep(100_000) }
                return sent.withLock { count in
                    guard count < archive.count else { return nil }
                    let piece = count < 192 * 1024 ? 64 * 1024 : 1
                    let end = min(archive.count, count + piece)
                    defer { count = end }
                    return Array(archive[count..<end])
                }
            }
        }
        return (origin, onboarding)
    }

    @Test func disposingStopsTheDownloadAndKeepsWhatArrived() async throws {
        let work = try Workspace()
        let (origin, onboarding) = try Self.stallingArchiveOrigin(work)
        let cache = try work.cache()
        let host = try Self.host(origin, cache, work)
        _ = try? await host.prepare()  // falls back at the deadline: that it fails is the previous test's subject
        // Let part of the archive arrive in the background (bounded), then dispose.
        let partial = cache.root + "/downloads/\(onboarding.bundleDigest.hex).tar.gz.part"
        _ = await eventually(within: .seconds(20)) { fileSize(partial) >= 100_000 }
        await host.dispose()
        // Disposal cancels the download; the transfer ends on the loop's next turn (scaled waits,
        // see `testTimeScale`: under ThreadSanitizer that turn can come late).
        try await Task.sleep(for: .milliseconds(300).scaledForTests)
        let kept = fileSize(partial)
        #expect(kept > 100_000)
        #expect(kept < onboarding.archiveSize)
        try await Task.sleep(for: .milliseconds(700).scaledForTests)
        #expect(fileSize(partial) == kept, "the download stopped with the host")
        #expect(try cache.bundle(onboarding.bundleDigest) == nil)
        try await offThePool { origin.stop() }
    }
}
