import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderPublish
import LarderTransport
import LarderSystem
import Synchronization

/// `larder-bench host`: offline prepare-to-ready from a warm cache for each sample bundle,
/// beside the time to read and hash the same files once (the floor), in the same run.
///
/// Each iteration is a new launch: a new `LarderCache` on the same folder (its verified set
/// and memory tier start empty, so every object is read and hashed again, as in the floor), a
/// new `JourneyHost` on the same state folder and a new `HeadlessRenderer`, with a transport
/// that fails at once (offline). The host asks the origin, records the failure and serves the
/// stale cache; the renderer reads and verifies the entry document and every essential file
/// and resolves every font URL. Before each iteration the host state is restored to what the
/// online warm-up left, so every launch asks the origin (a second table shows launches inside
/// the backoff that follows a failure, which do not).
enum HostBenchmark {
    struct Options {
        var runs = 200
        var warmUps = 5
        var samples = ["onboarding", "paywall", "legacy-prompt"]
    }

    static let key = "pk_bench"
    static let origin = URL(string: "http://origin.invalid/")!

    /// Percentiles in milliseconds of one timed operation.
    struct Latency {
        var milliseconds: [Double] = []
        mutating func add(nanoseconds: UInt64) { milliseconds.append(Double(nanoseconds) / 1e6) }
        var p50: Double { milliseconds.isEmpty ? .nan : percentile(milliseconds, 0.5) }
        var p99: Double { milliseconds.isEmpty ? .nan : percentile(milliseconds, 0.99) }
    }

    /// One sample's figures.
    struct SampleResult {
        var sample: String
        /// Direct presentation: the renderer loads only when visible.
        var direct: Bool
        var objects: Int
        var fonts: Int
        var bytes: Int64
        var prepare = Latency()
        var constructAndPrepare = Latency()
        var floor = Latency()
        var backoffPrepare = Latency()
        var backoffExcluded = 0
        /// Where one launch's time goes.
        var openCache = Latency()
        var openHost = Latency()
        var beforeLoad = Latency()
        var load = Latency()
        var afterLoad = Latency()
        var lease = Latency()
        /// Checking a signed document in full: parse, canonical signed bytes, Ed25519
        /// verification (what each fetched document costs; a launch reusing a document this host
        /// verified checks only its key and digest).
        var verify = Latency()
    }

    /// One launch, in `DispatchTime` nanoseconds.
    struct Launch {
        var start: UInt64
        var cacheOpened: UInt64
        var constructed: UInt64
        var loadStarted: UInt64
        var loadFinished: UInt64
        var ready: UInt64
        var report: HeadlessRenderer.LoadReport
    }

    static func run(_ options: Options, repository: String) throws -> Bool {
        let outcome = ResultBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { outcome.set(.success(try await runAll(options, repository: repository))) } catch { outcome.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return try outcome.get()
    }

    private static func runAll(_ options: Options, repository: String) async throws -> Bool {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("larder-bench-host-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: work) } catch { print("warning: could not remove \(work): \(error)") }
        }
        print("host: \(options.runs) runs after \(options.warmUps) warm-ups per sample; a new LarderCache, JourneyHost and")
        print("HeadlessRenderer per run, offline, warm cache; floor: read + SHA-256 of the same objects once")
        var results: [SampleResult] = []
        for sample in options.samples {
            results.append(try await measure(sample, options: options, samples: repository + "/SampleBundles", work: work + "/" + sample))
        }
        return printReport(results)
    }

    // MARK: One sample

    private static func measure(_ sample: String, options: Options, samples: String, work: String) async throws -> SampleResult {
        let pack = try Packer.pack(source: samples + "/" + sample, into: work + "/packed")
        // Signed, and the host trusts the key: every launch checks the stored document's signature.
        let signer = try SigningKey.generate()
        let published = try OriginPublisher.publish(
            archives: [pack.archivePath], to: work + "/origin", journey: JourneyPublication(id: sample, key: key, signingKey: signer))
        guard let document = published.journey else { throw BenchError("\(sample): no journey document was published") }
        let cacheFolder = work + "/cache"
        let storage = work + "/host"
        let configuration = JourneyConfiguration(publishableKey: key, journeyID: sample, origin: origin, trustedKeys: [signer.publicKey])

        // Warm: one online launch fetches the bundle and stores the authorised configuration.
        let online = WeakHost()
        do {
            let cache = try LarderCache(at: cacheFolder)
            let host = try JourneyHost(
                configuration: configuration, cache: cache, renderer: HeadlessRenderer(), storage: storage,
                transport: FolderOrigin(root: work + "/origin"), clock: SystemClock(), captureSink: RefusingSink())
            let journey = try await host.prepare()
            guard journey.source == .network, journey.bundle == pack.bundleDigest else {
                throw BenchError("\(sample): the online warm-up did not fetch the bundle (source \(journey.source))")
            }
            await host.dispose()
            online.host = host
        }
        try await online.waitUntilReleased()
        let snapshot = work + "/host-online"
        try FileManager.default.copyItem(atPath: storage, toPath: snapshot)

        let floorFiles = try essentialObjects(pack.bundleDigest, cache: cacheFolder)
        var result = SampleResult(
            sample: sample, direct: floorFiles.direct, objects: floorFiles.objects.count, fonts: floorFiles.fonts,
            bytes: floorFiles.objects.reduce(0) { $0 + fileSize($1.path) })
        let offline = OfflineTransport()
        var sink = 0

        func launch(restore: Bool) async throws -> Launch {
            let released = WeakHost()
            let launched = try await launchOnce(restore: restore, released: released)
            try await released.waitUntilReleased()
            return launched
        }

        func launchOnce(restore: Bool, released: WeakHost) async throws -> Launch {
            if restore {
                try FileManager.default.removeItem(atPath: storage)
                try FileManager.default.copyItem(atPath: snapshot, toPath: storage)
            }
            let renderer = TimedRenderer()
            let start = DispatchTime.now().uptimeNanoseconds
            let cache = try LarderCache(at: cacheFolder)
            let cacheOpened = DispatchTime.now().uptimeNanoseconds
            let host = try JourneyHost(
                configuration: configuration, cache: cache, renderer: renderer, storage: storage, transport: offline,
                clock: SystemClock(), captureSink: RefusingSink())
            let constructed = DispatchTime.now().uptimeNanoseconds
            let ready: UInt64
            let bundle: Digest
            if floorFiles.direct {
                // Direct presentation: prepare() loads nothing; the renderer loads once visible,
                // so ready is when present() (which prepares first) had it load the content.
                bundle = try await host.present().bundle
                ready = renderer.loadFinished
            } else {
                let journey = try await host.prepare()
                ready = DispatchTime.now().uptimeNanoseconds
                guard journey.preloaded else { throw BenchError("\(sample): expected prepared presentation") }
                bundle = journey.bundle
            }
            let servedStale = await host.timeline().contains { $0.kind == .servedStale }
            await host.dispose()
            released.host = host
            guard servedStale, bundle == pack.bundleDigest, let report = renderer.inner.lastLoad else {
                throw BenchError("\(sample): the offline launch was not served from the stale cache")
            }
            return Launch(
                start: start, cacheOpened: cacheOpened, constructed: constructed, loadStarted: renderer.loadStarted,
                loadFinished: renderer.loadFinished, ready: ready, report: report)
        }

        /// A lease on a newly opened cache: its first write.
        func leaseOnce() throws -> UInt64 {
            let cache = try LarderCache(at: cacheFolder)
            let start = DispatchTime.now().uptimeNanoseconds
            let lease = try cache.lease(pack.bundleDigest)
            let end = DispatchTime.now().uptimeNanoseconds
            lease.release()
            return end - start
        }

        func floorOnce() throws -> UInt64 {
            let start = DispatchTime.now().uptimeNanoseconds
            for object in floorFiles.objects {
                let bytes = try readFile(object.path)
                guard SHA256Hasher.hash(bytes) == object.digest else { throw BenchError("\(object.path) does not hash to its name") }
                sink &+= bytes.count
            }
            return DispatchTime.now().uptimeNanoseconds - start
        }

        // Every launch asks the (offline) origin: the state the online launch left is restored first.
        for run in 0..<(options.warmUps + options.runs) {
            var launched: Launch?
            var floor: UInt64 = 0
            for contender in run % 2 == 0 ? [0, 1] : [1, 0] {  // alternate which goes first
                if contender == 0 { launched = try await launch(restore: true) } else { floor = try floorOnce() }
            }
            let lease = try leaseOnce()
            guard let launched else { continue }
            if run == 0 {
                // The floor reads what the renderer read: its files (some may share an object) and fonts.
                guard launched.report.fonts == result.fonts, launched.report.resources + launched.report.fonts >= result.objects else {
                    throw BenchError("\(sample): the renderer read \(launched.report) but the floor reads \(result.objects) objects")
                }
            }
            sink &+= launched.report.resources
            guard run >= options.warmUps else { continue }
            result.prepare.add(nanoseconds: launched.ready - launched.constructed)
            result.constructAndPrepare.add(nanoseconds: launched.ready - launched.start)
            result.floor.add(nanoseconds: floor)
            result.openCache.add(nanoseconds: launched.cacheOpened - launched.start)
            result.openHost.add(nanoseconds: launched.constructed - launched.cacheOpened)
            result.beforeLoad.add(nanoseconds: launched.loadStarted - launched.constructed)
            result.load.add(nanoseconds: launched.loadFinished - launched.loadStarted)
            result.afterLoad.add(nanoseconds: launched.ready - launched.loadFinished)
            result.lease.add(nanoseconds: lease)
        }

        // Launches inside the backoff a failed attempt starts: the origin is not asked. A launch
        // that did ask (the backoff ran out) is left out.
        try FileManager.default.removeItem(atPath: storage)
        try FileManager.default.copyItem(atPath: snapshot, toPath: storage)
        _ = try await launch(restore: false)
        for run in 0..<(options.warmUps + options.runs) {
            let asked = offline.attempts
            let launched = try await launch(restore: false)
            guard run >= options.warmUps else { continue }
            if offline.attempts != asked {
                result.backoffExcluded += 1
                continue
            }
            result.backoffPrepare.add(nanoseconds: launched.ready - launched.constructed)
        }
        let stored = document.canonicalBytes
        for run in 0..<(options.warmUps + options.runs) * 10 {
            let start = DispatchTime.now().uptimeNanoseconds
            let parsed = try JourneyDocument(decoding: stored)
            guard let signature = parsed.signature, signer.publicKey.isValidSignature(signature.bytes, of: parsed.signedBytes) else {
                throw BenchError("\(sample): the published document does not verify")
            }
            if run >= options.warmUps * 10 { result.verify.add(nanoseconds: DispatchTime.now().uptimeNanoseconds - start) }
        }
        if sink == 42 { print("") }  // keeps the reads from being optimised away
        return result
    }

    /// The distinct objects the renderer must read: the entry document, every essential file,
    /// and the fonts the essential documents and style sheets refer to by `larder-font:` URL.
    private static func essentialObjects(
        _ bundle: Digest, cache folder: String
    ) throws -> (objects: [(digest: Digest, path: String)], fonts: Int, direct: Bool) {
        let cache = try LarderCache(at: folder)
        let manifest = try cache.manifest(bundle)
        let files = [manifest.entry] + manifest.files.filter { $0.essential && $0.path != manifest.entry }.map(\.path)
        var digests: [Digest] = []
        var fonts: Set<Digest> = []
        for path in files {
            guard let file = manifest.file(at: path) else { throw BenchError("the manifest has no '\(path)'") }
            if !digests.contains(file.digest) { digests.append(file.digest) }
            guard path == manifest.entry || file.role == .document || file.role == .style else { continue }
            let text = String(decoding: try readFile(objectPath(folder, file.digest)), as: UTF8.self)
            var rest = Substring(text)
            while let found = rest.range(of: FontURL.prefix) {
                let hex = rest[found.upperBound...].prefix(64)
                fonts.insert(try Digest(hex: hex))
                rest = rest[found.upperBound...]
            }
        }
        for font in fonts.sorted() where !digests.contains(font) { digests.append(font) }
        let direct = !HeadlessRenderer().supportsPreparation || !manifest.renderer.capabilities.isSuperset(of: [.prepare, .visibility])
        return (digests.map { ($0, objectPath(folder, $0)) }, fonts.count, direct)
    }

    /// `<cache>/objects/<first 2 hex>/<other 62 hex>` (Sources/LarderCache/CacheLayout.swift).
    private static func objectPath(_ cache: String, _ digest: Digest) -> String {
        let hex = digest.hex
        return cache + "/objects/" + hex.prefix(2) + "/" + hex.dropFirst(2)
    }

    /// A whole file with plain `open`, `fstat`, `read`.
    private static func readFile(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BenchError("cannot open \(path)") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw BenchError("cannot stat \(path)") }
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, size - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchError("cannot read \(path)") }
            filled += count
        }
        return bytes
    }

    // MARK: Report

    private static func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }

    private static func printReport(_ results: [SampleResult]) -> Bool {
        print("")
        print("sample         presentation  objects  fonts      kB   prepare p50    p99   construct+prepare p50    p99   floor p50   ratio")
        for result in results {
            print(
                String(
                    format: "%@ %@ %8d %6d %7.0f %10.2f ms %6.2f %19.2f ms %6.2f %8.3f ms %7.2f",
                    pad(result.sample, 14), pad(result.direct ? "direct*" : "prepared", 12), result.objects,
                    result.fonts, Double(result.bytes) / 1000, result.prepare.p50, result.prepare.p99,
                    result.constructAndPrepare.p50, result.constructAndPrepare.p99, result.floor.p50,
                    result.prepare.p50 / result.floor.p50))
        }
        if results.contains(where: \.direct) {
            print("* direct presentation (no 'prepare' capability): prepare() loads nothing, so the time is present() to loaded")
        }
        print("")
        print("inside the backoff after a failed attempt (the origin is not asked; state kept between launches):")
        for result in results {
            print(
                String(
                    format: "  %@ prepare p50 %.2f ms, p99 %.2f ms", pad(result.sample, 14), result.backoffPrepare.p50,
                    result.backoffPrepare.p99)
                    + (result.backoffExcluded > 0 ? " (\(result.backoffExcluded) launches that asked the origin left out)" : ""))
        }
        print("")
        print("where a launch's time goes (p50 of each part, ms; the parts' p50s need not add up to the whole):")
        print("sample         open cache  open host  before load  renderer load  after load   lease alone")
        for result in results {
            print(
                String(
                    format: "%@ %10.3f %10.3f %12.3f %14.3f %11.3f %13.3f", pad(result.sample, 14), result.openCache.p50,
                    result.openHost.p50, result.beforeLoad.p50, result.load.p50, result.afterLoad.p50, result.lease.p50))
        }
        print("  open host: host state + capture queue (SQLite); before load: resolve (state reads, the offline")
        print("  attempt, the failure record) and the lease; lease alone: a lease on a newly opened cache, measured apart")
        print("")
        print("signed documents (every launch above trusts the publisher's key and reuses the document it verified when")
        print("fetching it: key and digest only); a fetched document's full check, and its share of one launch:")
        for result in results {
            print(
                String(
                    format: "  %@ parse + verify p50 %.1f µs, p99 %.1f µs: %.1f%% of prepare p50", pad(result.sample, 14),
                    result.verify.p50 * 1000, result.verify.p99 * 1000, 100 * result.verify.p50 / result.prepare.p50))
        }
        print("")
        var passed = true
        for result in results {
            passed = report("\(result.sample): prepare p50 / floor p50", result.prepare.p50 / result.floor.p50, atMost: 3.0) && passed
            passed = report("\(result.sample): prepare p50 (ms)", result.prepare.p50, atMost: 5.0) && passed
        }
        return passed
    }
}

// MARK: Test doubles for the host

/// Serves an origin folder written by `OriginPublisher` in process: journey documents with an
/// ETag (304 on a match), every other path as file bytes, `Range: bytes=a-b` as 206.
private struct FolderOrigin: HTTPTransport {
    let root: String

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let path = request.url.path
        guard let bytes = FileManager.default.contents(atPath: root + path) else {
            return HTTPResponse(status: 404, headers: [:], body: Data())
        }
        if path.hasPrefix("/journeys/") {
            let etag = "\"" + SHA256Hasher.hash([UInt8](bytes)).hex.prefix(16) + "\""
            if request.headers["If-None-Match"] == etag { return HTTPResponse(status: 304, headers: ["etag": etag], body: Data()) }
            return HTTPResponse(status: 200, headers: ["etag": etag, "content-type": "application/json"], body: bytes)
        }
        let etag = "\"\(bytes.count)\""
        guard let range = request.headers["Range"], range.hasPrefix("bytes=") else {
            return HTTPResponse(status: 200, headers: ["etag": etag], body: bytes)
        }
        let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        let start = bounds.first.flatMap { $0 } ?? 0
        let end = min((bounds.count > 1 ? bounds[1] : nil) ?? bytes.count - 1, bytes.count - 1)
        guard start <= end else { return HTTPResponse(status: 416, headers: ["content-range": "bytes */\(bytes.count)"], body: Data()) }
        return HTTPResponse(
            status: 206, headers: ["etag": etag, "content-range": "bytes \(start)-\(end)/\(bytes.count)"],
            body: bytes.subdata(in: start..<(end + 1)))
    }
}

/// No network: every request fails at once, and is counted.
final class OfflineTransport: HTTPTransport {
    private let count = Atomic<Int>(0)

    var attempts: Int { count.load(ordering: .relaxed) }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        count.add(1, ordering: .relaxed)
        throw TransportError(.connection, "offline", url: request.url)
    }
}

/// Keeps captured events queued: nothing is posted.
struct RefusingSink: CaptureSink {
    func deliver(_ events: [CaptureEvent]) async -> CaptureReceipt {
        .failed(HostError(.unavailable, "larder-bench posts nothing"))
    }
}

/// A `HeadlessRenderer` that notes when its last load began and returned.
private final class TimedRenderer: JourneyRenderer {
    let inner = HeadlessRenderer()
    var protocolVersion: Int { inner.protocolVersion }
    private let started = Atomic<UInt64>(0)
    private let finished = Atomic<UInt64>(0)

    /// `DispatchTime` nanoseconds when the last load was called.
    var loadStarted: UInt64 { started.load(ordering: .relaxed) }
    /// `DispatchTime` nanoseconds when the last successful load returned.
    var loadFinished: UInt64 { finished.load(ordering: .relaxed) }

    var capabilities: Set<Manifest.Capability> { inner.capabilities }
    func start(bridge: RendererBridge) async throws(HostError) { try await inner.start(bridge: bridge) }
    func load(_ content: RenderContent, visible: Bool) async throws(HostError) {
        started.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        try await inner.load(content, visible: visible)
        finished.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }
    func show(_ session: PresentationSession) async throws(HostError) { try await inner.show(session) }
    func reset() async throws(HostError) { try await inner.reset() }
    func unload() async { await inner.unload() }
    func stop() async { await inner.stop() }
}

/// A disposed host, to wait for: its state files close when the last reference goes, which may
/// be on another thread a moment after `dispose()` returned.
private final class WeakHost {
    weak var host: JourneyHost?

    /// Waits (at most 5 s) until nothing holds the host, so the next launch or the clean-up
    /// finds its SQLite files closed.
    func waitUntilReleased() async throws {
        let deadline = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
        while host != nil {
            guard DispatchTime.now().uptimeNanoseconds < deadline else { throw BenchError("a disposed JourneyHost was never released") }
            try await Task.sleep(for: .microseconds(200))
        }
    }
}

/// Hands an async result to the synchronous caller.
private final class ResultBox: Sendable {
    private let value = Locked<Result<Bool, any Error>?>(nil)
    func set(_ result: Result<Bool, any Error>) { value.withLock { $0 = result } }
    func get() throws -> Bool {
        guard let result = value.withLock({ $0 }) else { throw BenchError("the host benchmark did not finish") }
        return try result.get()
    }
}
