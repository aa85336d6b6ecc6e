import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderSQLite
import LarderSystem
import LarderTransport

/// Checks one crash state, mounted, through Larder's public API (so its own recovery runs
/// first), against the ``Expectations`` of the crash point. Every problem is a line of the
/// verdict; none means the state is good.
struct CacheChecker {
    /// The workload's operations, from the whole log.
    let operations: [Operation]
    let objects: [Digest: Set<Digest>]
    /// An archive the workload never installs: the cache must take it and serve it.
    let probe: Archives.Entry
    /// The journey runs' scope (publishable key and origin), to read the host's stored state.
    let journeyKey: String
    let journeyOrigin: URL

    /// - Parameter root: the mounted file system; the cache is `root/cache`.
    func check(root: String, point: Int) async -> [String] {
        let expected = Expectations(operations, at: point, objects: objects)
        let cacheRoot = root + "/cache"
        guard FileManager.default.fileExists(atPath: cacheRoot + "/index.sqlite") else {
            return ["the cache's index is gone (it existed at base)"]
        }
        var problems: [String] = []
        var clock = StepClock()
        do {
            let cache = try LarderCache(at: cacheRoot)
            clock.lap("open")
            problems += integrity(cacheRoot + "/index.sqlite")
            clock.lap("integrity")
            problems += try bundles(cache, expected)
            clock.lap("bundles")
            problems += await host(cache, root: cacheRoot + "/host", expected)
            clock.lap("host")
            problems += try takesNewInstall(cache)
            clock.lap("install")
        } catch {
            problems.append("the cache failed: \(error)")
        }
        return problems
    }

    /// `PRAGMA integrity_check` of a SQLite file.
    func integrity(_ path: String) -> [String] {
        do {
            let database = try SQLiteDatabase<SQLiteError>(path: path)
            let query = try database.prepare("PRAGMA integrity_check")
            var lines: [String] = []
            while try query.step() { lines.append(query.text(0)) }
            return lines == ["ok"] ? [] : ["\(path): integrity_check says \(lines.prefix(3).joined(separator: "; "))"]
        } catch {
            return ["\(path): cannot check: \(error)"]
        }
    }

    /// Every visible bundle began before the crash and serves only verified bytes; every
    /// acknowledged bundle is there.
    private func bundles(_ cache: LarderCache, _ expected: Expectations) throws -> [String] {
        var problems: [String] = []
        let visible = try cache.bundles()
        for bundle in visible {
            let name = "bundle \(bundle.name) (\(bundle.digest.hex.prefix(12)))"
            guard expected.mayBePresent.contains(bundle.digest) else {
                problems.append("\(name) is visible, but no install of it began before the crash point")
                continue
            }
            let damaged = (objects[bundle.digest] ?? []).intersection(expected.mayBeCorrupt)
            guard bundle.complete else {
                if damaged.isEmpty { problems.append("\(name) is incomplete, yet none of its objects was damaged on purpose") }
                continue
            }
            problems += read(bundle.digest, name: name, cache, damaged: damaged)
        }
        let names = Set(visible.map(\.digest))
        for lost in expected.present.subtracting(names).sorted() {
            problems.append("bundle \(lost.hex.prefix(12)) was acknowledged installed before the crash point and is gone")
        }
        return problems
    }

    /// Reads every file of a complete bundle through a lease; each must hash to its digest,
    /// or (for objects damaged on purpose) fail as corrupt and be quarantined.
    private func read(_ digest: Digest, name: String, _ cache: LarderCache, damaged: Set<Digest>) -> [String] {
        let lease: BundleLease
        do { lease = try cache.lease(digest) } catch {
            return ["\(name): cannot lease it: \(error)"]
        }
        defer { lease.release() }
        var problems: [String] = []
        var failed = 0
        for file in lease.manifest.files {
            do {
                let bytes = try lease.data(at: file.path)
                if SHA256Hasher.hash(bytes) != file.digest { problems.append("\(name): \(file.path) was served with other bytes than its digest's") }
            } catch where error.code == .corruptObject && damaged.contains(file.digest) {
                let path = cacheObjectPath(cache.root, file.digest)
                if FileManager.default.fileExists(atPath: path) { problems.append("\(name): corrupt \(file.path) was not quarantined") }
                if (try? cache.bundle(digest))??.complete != false { problems.append("\(name): still complete after a corrupt object") }
                return problems  // the bundle is incomplete now: the lease's other reads mean nothing
            } catch {
                failed += 1
                if failed == 1 { problems.append("\(name): \(file.path): \(error)") }
            }
        }
        if failed > 1 { problems.append("\(name): \(failed) of its \(lease.manifest.files.count) files failed so") }
        return problems
    }

    /// The host's state and capture queue: intact, the acknowledged journeys' bundles stored,
    /// the acknowledged captures queued, nothing captured after the crash point.
    private func host(_ cache: LarderCache, root: String, _ expected: Expectations) async -> [String] {
        var problems: [String] = []
        for file in ["host.sqlite", "capture.sqlite"] where FileManager.default.fileExists(atPath: root + "/" + file) {
            problems += integrity(root + "/" + file)
        }
        for (journey, bundle) in expected.journeys.sorted(by: { $0.key < $1.key }) {
            do {
                let host = try JourneyHost(
                    configuration: JourneyConfiguration(publishableKey: journeyKey, journeyID: journey, origin: journeyOrigin),
                    cache: cache, renderer: HeadlessRenderer(), storage: root, transport: NoNetwork())
                let status = try await host.status()
                if status.bundle != bundle {
                    problems.append("journey \(journey): the host's state names \(status.bundle?.description ?? "no bundle"), not the acknowledged \(bundle)")
                }
                await host.dispose()
            } catch {
                problems.append("journey \(journey): the host's state cannot be read: \(error)")
            }
        }
        guard !expected.mayBeCaptured.isEmpty || FileManager.default.fileExists(atPath: root + "/capture.sqlite") else { return problems }
        do {
            let queued = Set(try CaptureQueue(path: root + "/capture.sqlite").pending().map(\.id))
            for lost in expected.captures.subtracting(queued).sorted() { problems.append("capture \(lost) was acknowledged and is gone") }
            for early in queued.subtracting(expected.mayBeCaptured).sorted() where !(expected.hostMayCapture && !early.hasPrefix("event-")) {
                problems.append("capture \(early) is queued, but began after the crash point")
            }
        } catch {
            problems.append("the capture queue cannot be read: \(error)")
        }
        return problems
    }

    /// Installs the probe bundle and reads it back.
    private func takesNewInstall(_ cache: LarderCache) throws -> [String] {
        do {
            _ = try cache.install(archiveAt: probe.path, expected: probe.digest)
            let lease = try cache.lease(probe.digest)
            defer { lease.release() }
            for file in lease.manifest.files where SHA256Hasher.hash(try lease.data(at: file.path)) != file.digest {
                return ["the new install serves other bytes for \(file.path)"]
            }
            return []
        } catch {
            return ["the cache does not take a new install: \(error)"]
        }
    }
}

/// The checker never asks an origin: the host's stored state is what it reads.
private struct NoNetwork: HTTPTransport {
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        throw TransportError(.connection, "the power-loss checker has no network", url: request.url)
    }
}

/// Time per step of a check, written to standard error when `LARDER_POWERLOSS_PROFILE=1`.
struct StepClock {
    private static let enabled = ProcessInfo.processInfo.environment["LARDER_POWERLOSS_PROFILE"] == "1"
    private var last = DispatchTime.now().uptimeNanoseconds
    private var laps: [String] = []

    mutating func lap(_ name: String) {
        guard Self.enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        laps.append("\(name) \((now - last) / 1_000_000) ms")
        last = now
        if name == "install" { FileHandle.standardError.write(Data(("check: " + laps.joined(separator: ", ") + "\n").utf8)) }
    }
}

/// Where a cache keeps an object (`objects/ab/cdef…`, see LarderCache's layout).
func cacheObjectPath(_ root: String, _ digest: Digest) -> String {
    let hex = digest.hex
    return root + "/objects/" + hex.prefix(2) + "/" + hex.dropFirst(2)
}
