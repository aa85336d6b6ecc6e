import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderWebKit
import LarderSystem

/// `larder-bench render`: the web engine, from the cache, against the same engine loading the
/// same unpacked folder from nginx on 127.0.0.1, in the same run.
///
/// - Warm prepare-to-ready: the engine is started (two renderers, one per contender, each
///   warmed up); each run leases the bundle from a warm cache and loads its entry hidden until
///   ready (load finished, fonts ready, every FontFace loaded), against loading
///   `http://127.0.0.1:<port>/<sample>/index.html` until ready by the same rules. The order
///   alternates between runs. WebKit's memory cache is emptied before every run (the context
///   is ephemeral: no disk cache), so every run fetches every file for both, and within a
///   load a preload and its use share one fetch for both. Each renderer gets a new web process
///   every 10 runs (warmed up by one load left out): one whose cache is emptied before every
///   load keeps about 1.5 MB a load.
/// - Cold: a new process (this binary, `render-cold`) starts the engine and loads the sample
///   once; the time from the renderer's start to ready, and the peak memory of the UI
///   process, the renderer's web process and the network process.
enum RenderBenchmark {
    struct Options {
        var runs = 50
        var warmUps = 5
        var colds = 5
        var samples = ["onboarding", "paywall", "legacy-prompt"]
    }

    struct Latency {
        var milliseconds: [Double] = []
        mutating func add(_ duration: Duration) { milliseconds.append(Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1e3) }
        var p50: Double { milliseconds.isEmpty ? .nan : percentile(milliseconds, 0.5) }
        var p99: Double { milliseconds.isEmpty ? .nan : percentile(milliseconds, 0.99) }
    }

    struct SampleResult {
        var sample: String
        var larder = Latency()
        var nginx = Latency()
        /// The lease alone, part of `larder`.
        var lease = Latency()
        var requests = 0
        var bytes: Int64 = 0
        var fonts = 0
        var cold: [ColdStart] = []
    }

    /// One cold start, as `render-cold` prints it.
    struct ColdStart {
        var startMs: Double
        var readyMs: Double
        var ui: Int
        var web: Int
        var network: Int
    }

    static func run(_ options: Options, repository: String, binary: String) throws -> Bool {
        let outcome = Locked<Result<Bool, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let result: Result<Bool, any Error>
            do { result = .success(try await runAll(options, repository: repository, binary: binary)) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { throw BenchError("the render benchmark did not finish") }
        return try result.get()
    }

    private static func runAll(_ options: Options, repository: String, binary: String) async throws -> Bool {
        if let display = try VirtualDisplay.startIfNeeded() { print("display: Xvfb \(display.name), started for this run") }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("larder-bench-render-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: work) } catch { print("warning: could not remove \(work): \(error)") }
        }
        // nginx serves each bundle's own files (the font pipeline's WOFF2 subsets), unpacked.
        let cache = try LarderCache(at: work + "/cache")
        var bundles: [String: Digest] = [:]
        for sample in options.samples {
            let pack = try Packer.pack(source: repository + "/SampleBundles/" + sample, into: work + "/packed")
            bundles[sample] = try cache.install(archiveAt: pack.archivePath).bundle
            try UnpackedBundle.write(archive: pack.archivePath, into: work + "/site/" + sample)
        }
        let site = try StaticSite(root: work + "/site", run: work + "/nginx")
        defer { site.stop() }
        let origin = "http://127.0.0.1:\(site.port)"
        print("render: \(options.runs) runs after \(options.warmUps) warm-ups per sample, alternating; larder: lease + load hidden")
        print("from the cache through larder:// and larder-font://; nginx: the unpacked folder from \(origin) in the same engine")

        var configuration = WebKitRenderer.Configuration(remote: try RemotePolicy(allowing: [origin]))
        let fromCache = WebKitRenderer(configuration: configuration)
        // nginx straight, not through the egress filter: the schemes against a web server.
        configuration.unfilteredNetwork = true
        let fromServer = WebKitRenderer(configuration: configuration)
        try await fromCache.start(bridge: RendererBridge { _ in })
        try await fromServer.start(bridge: RendererBridge { _ in })
        var results: [SampleResult] = []
        /// The most a web process held before it was replaced.
        var grown = 0
        for sample in options.samples {
            guard let bundle = bundles[sample] else { continue }
            var result = SampleResult(sample: sample)
            var held: BundleLease?
            let clock = ContinuousClock()
            for run in 0..<(options.warmUps + options.runs) {
                if run > 0 && run % 10 == 0 {
                    // Emptying WebKit's memory cache before every load makes a web process keep
                    // about 1.5 MB a load (renderer.clearEngineMemoryCache): new ones every 10
                    // runs, each warmed up by one load left out of the figures.
                    for process in ProcessMemory.descendants() where process.name.hasPrefix("WebKitWebProces") {
                        grown = max(grown, process.resident)
                    }
                    await fromCache.endWebProcess()
                    await fromServer.endWebProcess()
                    let lease = try cache.lease(bundle)
                    try await fromCache.load(RenderContent(journey: sample, revision: 1, lease: lease, cache: cache), visible: false)
                    held?.release()
                    held = lease
                    _ = try await fromServer.loadPage("\(origin)/\(sample)/index.html", visible: false)
                }
                for contender in run % 2 == 0 ? [0, 1] : [1, 0] {
                    try await (contender == 0 ? fromCache : fromServer).clearEngineMemoryCache()
                    let start = clock.now
                    if contender == 0 {
                        let lease = try cache.lease(bundle)
                        if run >= options.warmUps { result.lease.add(clock.now - start) }
                        try await fromCache.load(RenderContent(journey: sample, revision: 1, lease: lease, cache: cache), visible: false)
                        let elapsed = clock.now - start
                        held?.release()
                        held = lease
                        if run >= options.warmUps { result.larder.add(elapsed) }
                    } else {
                        _ = try await fromServer.loadPage("\(origin)/\(sample)/index.html", visible: false)
                        if run >= options.warmUps { result.nginx.add(clock.now - start) }
                    }
                }
            }
            held?.release()
            guard let cached = await fromCache.lastLoad, let served = await fromServer.lastLoad,
                cached.fonts.count == served.fonts.count, cached.fonts.allSatisfy({ $0.status == "loaded" }),
                served.fonts.allSatisfy({ $0.status == "loaded" })
            else { throw BenchError("\(sample): the two contenders did not load the same fonts") }
            result.requests = cached.requests.count
            result.bytes = cached.bytes
            result.fonts = cached.fonts.count
            for _ in 0..<options.colds {
                result.cold.append(try coldStart(binary: binary, cache: work + "/cache", bundle: bundle, work: work))
            }
            results.append(result)
        }
        let webProcesses = ProcessMemory.descendants().filter { $0.name.hasPrefix("WebKitWebProces") }
        await fromCache.stop()
        await fromServer.stop()
        return printReport(results, webProcesses: webProcesses, grown: grown)
    }

    /// Runs `render-cold` in a new process and reads what it printed.
    private static func coldStart(binary: String, cache: String, bundle: Digest, work: String) throws -> ColdStart {
        let output = work + "/cold.json"
        let result = try Subprocess.run([binary, "render-cold", cache, bundle.hex], stdoutPath: output)
        guard result.status == 0, case .object(let fields) = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: output)))),
            case .double(let start)? = fields["startMs"].map(asDouble), case .double(let ready)? = fields["readyMs"].map(asDouble),
            case .int(let ui)? = fields["ui"], case .int(let web)? = fields["web"], case .int(let network)? = fields["network"]
        else { throw BenchError("render-cold failed (status \(result.status))") }
        return ColdStart(startMs: start, readyMs: ready, ui: Int(ui), web: Int(web), network: Int(network))
    }

    private static func asDouble(_ value: JSONValue) -> JSONValue {
        if case .int(let number) = value { return .double(Double(number)) }
        return value
    }

    /// Runs ``coldChild(cache:bundle:)`` on the global executor and waits for it, at most 60 s
    /// (then the process ends with status 3).
    static func runColdChild(cache: String, bundle: String) throws {
        let outcome = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { try await coldChild(cache: cache, bundle: bundle) } catch { outcome.withLock { $0 = error } }
            done.signal()
        }
        guard done.wait(timeout: .now() + 60) == .success else {
            FileHandle.standardError.write(Data("render-cold: not ready within 60 s\n".utf8))
            exit(3)
        }
        if let error = outcome.withLock({ $0 }) { throw error }
    }

    /// `render-cold <cache> <bundle-hex>`: in a new process, starts the engine, loads the
    /// bundle hidden until ready and prints the times and peak memory as JSON.
    static func coldChild(cache folder: String, bundle hex: String) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        _ = try VirtualDisplay.startIfNeeded()
        let cache = try LarderCache(at: folder)
        let renderer = WebKitRenderer()
        try await renderer.start(bridge: RendererBridge { _ in })
        let started = clock.now
        let lease = try cache.lease(try Digest(hex: hex))
        try await renderer.load(RenderContent(journey: "cold", revision: 1, lease: lease, cache: cache), visible: false)
        let ready = clock.now
        let children = ProcessMemory.descendants()
        func peak(_ prefix: String) -> Int64 { Int64(children.filter { $0.name.hasPrefix(prefix) }.map(\.bytes).max() ?? 0) }
        let json = JSONValue.object([
            "startMs": .double(milliseconds(started - start)), "readyMs": .double(milliseconds(ready - start)),
            "ui": .int(Int64(ProcessMemory.own()?.bytes ?? 0)), "web": .int(peak("WebKitWebProces")), "network": .int(peak("WebKitNetworkP")),
        ])
        print(String(decoding: json.canonicalBytes, as: UTF8.self))
        await renderer.stop()
        lease.release()
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
    }

    private static func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }

    private static func printReport(_ results: [SampleResult], webProcesses: [ProcessMemory.Peak], grown: Int) -> Bool {
        print("")
        print("warm prepare-to-ready (engine started), ms:")
        print("sample         requests      kB  fonts   larder p50    p99   nginx p50    p99   ratio p50   ratio p99")
        for result in results {
            print(
                String(
                    format: "%@ %8d %7.0f %6d %12.2f %6.2f %11.2f %6.2f %11.2f %11.2f", pad(result.sample, 14), result.requests,
                    Double(result.bytes) / 1000, result.fonts, result.larder.p50, result.larder.p99, result.nginx.p50, result.nginx.p99,
                    result.larder.p50 / result.nginx.p50, result.larder.p99 / result.nginx.p99))
        }
        print("  of which the lease (an index write): " + results.map { String(format: "%@ p50 %.2f ms", $0.sample, $0.lease.p50) }.joined(separator: ", "))
        print("")
        print("cold engine start to first ready (a new process: GTK, the web context, the first web process), median of \(results.first?.cold.count ?? 0):")
        print("sample         start ms   ready ms   UI process MB   web process MB   network process MB")
        for result in results {
            let starts = result.cold.map(\.startMs)
            let readies = result.cold.map(\.readyMs)
            func megabytes(_ values: [Int]) -> Double { percentile(values.map(Double.init), 0.5) / 1e6 }
            print(
                String(
                    format: "%@ %8.1f %10.1f %15.1f %16.1f %20.1f", pad(result.sample, 14), percentile(starts, 0.5), percentile(readies, 0.5),
                    megabytes(result.cold.map(\.ui)), megabytes(result.cold.map(\.web)), megabytes(result.cold.map(\.network))))
        }
        print("  start: renderer.start() returned (GTK and the engine up, the view created); ready: its first load ready.")
        print("  Peak RSS (VmHWM). Each renderer has its own web process; the UI and network processes are shared.")
        if !webProcesses.isEmpty {
            print(String(format: "  the two renderers' web processes (new every 10 runs, the memory cache emptied before each load) hold %@ MB at the end, at most %.1f MB before a renewal",
                         webProcesses.map { String(format: "%.1f", Double($0.resident) / 1e6) }.joined(separator: " and "), Double(grown) / 1e6))
        }
        print("")
        var passed = true
        for result in results {
            passed = report("\(result.sample): larder p50 / nginx p50", result.larder.p50 / result.nginx.p50, atMost: 1.0) && passed
        }
        return passed
    }
}
