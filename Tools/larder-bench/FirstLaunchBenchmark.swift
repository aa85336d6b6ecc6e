import Foundation
import LarderFormat
import LarderHost
import LarderSystem
import LarderWebKit

/// `larder-bench firstlaunch`: a new user's first launch over a mobile link. The benchmark runs
/// in a network namespace of its own (`unshare -n`, as root) whose loopback is a 1.6 Mbit/s link
/// (`ip link set lo mtu 1500`: tbf drops every packet larger than its burst, and lo's MTU is
/// 65536; `tc qdisc add dev lo root tbf rate 1600kbit burst 32kb latency 100ms`), with nginx, Xvfb
/// and every client inside it. For each sample, from an empty cache, it times start to renderer
/// ready in WebKitGTK and counts the bytes the link carried (the loopback's byte counter, so
/// headers, TCP and IP included) for:
///
/// - (a) `larder journey prepare --renderer webkit` of the bundle packed with the font pipeline;
/// - (b) the same for the bundle packed with `"fonts": {"woff2": false}`;
/// - (c) the same engine, in a new process, loading the unpacked source folder from nginx
///   (`gzip on` for text types, as a CDN serves a web paywall) until ready by the same rules.
///
/// It also times `larder pack` of the samples with an empty and with a warm font cache, and
/// `curl` of onboarding's archive as the link's calibration. Targets: onboarding's bytes on the
/// wire ≤ 150 kB, and (a) ≤ 0.25 × (c) for every sample.
enum FirstLaunchBenchmark {
    struct Options {
        var runs = 3
        var samples = ["onboarding", "paywall", "legacy-prompt"]
    }

    /// The environment variable that says the process already runs in the namespace.
    static let insideNamespace = "LARDER_BENCH_FIRSTLAUNCH_NETNS"

    struct Measure {
        var seconds: [Double] = []
        var bytes: [Int64] = []
        var failures: [String] = []
        var median: Double { seconds.isEmpty ? .nan : percentile(seconds, 0.5) }
        var medianBytes: Int64 { bytes.isEmpty ? 0 : bytes.sorted()[bytes.count / 2] }
    }

    /// Runs the benchmark in a new network namespace: this binary again, under `unshare -n`.
    static func run(_ options: Options, repository: String, binFolder: String) throws -> Bool {
        guard ProcessInfo.processInfo.environment[insideNamespace] == "1" else {
            guard geteuid() == 0 else { throw BenchError("firstlaunch makes a network namespace and a tc qdisc: run it as root") }
            var arguments = ["/usr/bin/unshare", "-n", "--", "/usr/bin/env", "-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "\(insideNamespace)=1"]
            arguments += [binFolder + "/larder-bench", "firstlaunch", "--runs", String(options.runs)]
            let result = try Subprocess.run(arguments)
            return result.status == 0
        }
        return try inside(options, repository: repository, binFolder: binFolder)
    }

    private static func inside(_ options: Options, repository: String, binFolder: String) throws -> Bool {
        let larder = binFolder + "/larder"
        for command in [
            "ip link set lo up", "ip link set lo mtu 1500", "tc qdisc add dev lo root tbf rate 1600kbit burst 32kb latency 100ms",
        ] {
            let result = try Subprocess.shell(command)
            guard result.status == 0 else { throw BenchError("'\(command)' failed (status \(result.status))") }
        }
        if let display = try VirtualDisplay.startIfNeeded() { print("display: Xvfb \(display.name), in the namespace") }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("larder-bench-firstlaunch-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: work) } catch { print("warning: could not remove \(work): \(error)") }
        }
        print("firstlaunch: loopback of a network namespace at 1.6 Mbit/s (tc tbf rate 1600kbit burst 32kb latency 100ms, mtu 1500)")

        // Pack: the samples as they are (the pipeline: latin subsets) with an empty and a warm
        // font cache, and with "woff2": false.
        try FileManager.default.copyItem(atPath: repository + "/SampleBundles", toPath: work + "/samples")
        let fontCache = work + "/font-cache"
        var packTimes: [String: Double] = [:]
        for round in ["empty", "warm"] {
            let result = try Subprocess.run(
                [larder, "pack"] + options.samples.map { work + "/samples/" + $0 } + ["-o", work + "/packed-\(round)", "--font-cache", fontCache, "--json"],
                stdoutPath: work + "/pack-\(round).json", stderrPath: work + "/pack-\(round).err")
            guard result.status == 0 else { throw BenchError("larder pack failed (\(round) font cache)") }
            packTimes[round] = result.seconds
        }
        guard FileManager.default.contentsEqual(atPath: work + "/packed-empty", andPath: work + "/packed-warm") else {
            throw BenchError("packing with an empty and a warm font cache gave different archives")
        }
        for sample in options.samples {
            let folder = work + "/plain/" + sample
            try FileManager.default.createDirectory(atPath: work + "/plain", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: work + "/samples/" + sample, toPath: folder)
            let configuration = try String(contentsOfFile: folder + "/larder.json", encoding: .utf8)
            guard let fonts = configuration.range(of: #""fonts": "#) else { throw BenchError("\(sample)'s larder.json has no \"fonts\"") }
            try Data((configuration[..<fonts.lowerBound] + #""fonts": {"woff2": false}}"#).utf8).write(to: URL(fileURLWithPath: folder + "/larder.json"))
        }
        let plain = try Subprocess.run(
            [larder, "pack"] + options.samples.map { work + "/plain/" + $0 } + ["-o", work + "/packed-plain", "--json"], stdoutPath: work + "/pack-plain.json",
            stderrPath: work + "/pack-plain.err")
        guard plain.status == 0 else { throw BenchError("larder pack of the woff2: false copies failed") }

        // Publish both to one origin: journey <sample> and <sample>-plain.
        let origin = work + "/origin"
        for (file, suffix) in [("pack-warm.json", ""), ("pack-plain.json", "-plain")] {
            let report = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: work + "/" + file))))
            guard case .object(let fields) = report, case .array(let bundles) = fields["bundles"] else { throw BenchError("unexpected pack report") }
            for (sample, bundle) in zip(options.samples, bundles) {
                guard case .object(let packed) = bundle, case .string(let archive) = packed["archivePath"] else { throw BenchError("no archive") }
                let published = try Subprocess.run(
                    [larder, "publish", archive, "--origin", origin, "--journey", sample + suffix, "--key", "pk_bench", "--refresh", "900"],
                    stdoutPath: work + "/publish.log")
                guard published.status == 0 else { throw BenchError("larder publish of \(sample)\(suffix) failed") }
            }
        }
        let port = try Subprocess.run(["/bin/bash", repository + "/Tools/origin/origin.sh", "start", origin, work + "/run"], stdoutPath: work + "/port")
        guard port.status == 0, let number = Int(try String(contentsOfFile: work + "/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("the origin did not start")
        }
        defer { _ = try? Subprocess.run(["/bin/bash", repository + "/Tools/origin/origin.sh", "stop", work + "/run"]) }  // best effort at the end
        let originURL = "http://127.0.0.1:\(number)/"
        let site = try StaticSite(root: work + "/samples", run: work + "/static", gzip: true)
        defer { site.stop() }

        // Calibration: curl of onboarding's archive over the link.
        if let onboarding = try? String(contentsOfFile: work + "/pack-warm.json", encoding: .utf8),
            let hex = onboarding.range(of: #"[0-9a-f]{64}\.tar\.gz"#, options: .regularExpression)
        {
            let url = originURL + "bundles/" + onboarding[hex]
            let curl = try Subprocess.run(["/usr/bin/curl", "-s", "-o", "/dev/null", url])
            print(String(format: "calibration: curl of onboarding's archive %@: %.2f s", String(onboarding[hex].prefix(12)), curl.seconds))
        }

        // What every contender pays before its first byte: a new process starting the engine and
        // loading a page of one line from the same nginx over the same link.
        try Data("<!doctype html><p>.</p>".utf8).write(to: URL(fileURLWithPath: work + "/samples/empty.html"))
        var baseline = Measure()
        for _ in 0..<options.runs {
            let page = try Subprocess.run(
                [binFolder + "/larder-bench", "firstlaunch-page", "http://127.0.0.1:\(site.port)/empty.html"], stdoutPath: work + "/page.log",
                stderrPath: work + "/page.err")
            if page.status == 0 { baseline.seconds.append(page.seconds) }
        }
        print(String(format: "engine start and a one-line page (every contender's fixed cost): %.2f s", baseline.median))

        var rows: [(sample: String, a: Measure, b: Measure, c: Measure)] = []
        for sample in options.samples {
            var a = Measure()
            var b = Measure()
            var c = Measure()
            for run in 0..<options.runs {
                for (journey, target) in [(sample, 0), (sample + "-plain", 1)] {
                    let cache = work + "/cache-\(journey)-\(run)"
                    let before = try loopbackBytes()
                    let result = try Subprocess.run(
                        [
                            larder, "journey", "prepare", "--origin", originURL, "--key", "pk_bench", "--journey", journey, "--cache", cache,
                            "--renderer", "webkit", "--deadline", "60s",
                        ], stdoutPath: work + "/journey.log", stderrPath: work + "/journey.err")
                    let moved = try loopbackBytes() - before
                    if result.status == 0 {
                        if target == 0 { a.seconds.append(result.seconds); a.bytes.append(moved) } else { b.seconds.append(result.seconds); b.bytes.append(moved) }
                    } else {
                        let why = (try? String(contentsOfFile: work + "/journey.err", encoding: .utf8)) ?? ""  // for the report only
                        if target == 0 { a.failures.append(why) } else { b.failures.append(why) }
                    }
                }
                let before = try loopbackBytes()
                let page = try Subprocess.run(
                    [binFolder + "/larder-bench", "firstlaunch-page", "http://127.0.0.1:\(site.port)/\(sample)/index.html"],
                    stdoutPath: work + "/page.log", stderrPath: work + "/page.err")
                let moved = try loopbackBytes() - before
                if page.status == 0 { c.seconds.append(page.seconds); c.bytes.append(moved) } else { c.failures.append("status \(page.status)") }
            }
            rows.append((sample, a, b, c))
        }

        func cell(_ measure: Measure) -> String {
            measure.seconds.isEmpty
                ? "failed (\(measure.failures.first?.split(separator: "\n").first ?? ""))"
                : String(format: "%.2f s, %d kB", measure.median, Int(measure.medianBytes / 1000))
        }
        print("\nmedian of \(options.runs) runs, from an empty cache, process start to ready in WebKitGTK; bytes the link carried")
        print("(a)/(c) raw, and net of the fixed cost above (the target is checked on the net ratio)")
        print("sample          (a) pipeline             (b) woff2:false          (c) nginx, unpacked, gzip    raw    net   target")
        var met = true
        for row in rows {
            let ratio = row.a.median / row.c.median
            let net = (row.a.median - baseline.median) / (row.c.median - baseline.median)
            let ok = net <= 0.25
            met = met && ok
            print(
                row.sample.padding(toLength: 16, withPad: " ", startingAt: 0) + cell(row.a).padding(toLength: 25, withPad: " ", startingAt: 0)
                    + cell(row.b).padding(toLength: 25, withPad: " ", startingAt: 0) + cell(row.c).padding(toLength: 29, withPad: " ", startingAt: 0)
                    + String(format: "%4.2f   %4.2f", ratio, net) + "  ≤ 0.25 " + (ok ? "met" : "MISSED"))
        }
        if let onboarding = rows.first(where: { $0.sample == "onboarding" }) {
            let ok = !onboarding.a.bytes.isEmpty && onboarding.a.medianBytes <= 150_000
            met = met && ok
            print("onboarding's bytes on the wire, (a): \(onboarding.a.medianBytes) (target ≤ 150000) \(ok ? "met" : "MISSED")")
        }
        print(String(format: "larder pack of %d samples: %.2f s with an empty font cache, %.2f s with a warm one", options.samples.count, packTimes["empty"] ?? .nan, packTimes["warm"] ?? .nan))
        return met
    }

    /// The bytes the namespace's loopback sent so far (each packet counted once), from
    /// `/proc/self/net/dev`, which shows this process's network namespace (`/sys/class/net`
    /// shows the namespace sysfs was mounted in: the host's).
    private static func loopbackBytes() throws -> Int64 {
        let text = try String(contentsOfFile: "/proc/self/net/dev", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("lo:") }) else {
            throw BenchError("no lo in /proc/self/net/dev")
        }
        let fields = line.split(separator: ":")[1].split(separator: " ")
        guard fields.count > 8, let bytes = Int64(fields[8]) else { throw BenchError("cannot read lo's transmitted bytes") }
        return bytes
    }

    /// `firstlaunch-page <url>`: in a new process, starts the engine and loads `url` hidden
    /// until ready (remote requests to its origin allowed); exits 0 when ready.
    static func runPageChild(url: String) throws {
        let outcome = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                _ = try VirtualDisplay.startIfNeeded()
                let origin = String(url.prefix { $0 != "/" } + "//") + url.dropFirst(url.prefix { $0 != "/" }.count + 2).prefix { $0 != "/" }
                var configuration = WebKitRenderer.Configuration(loadTimeout: .seconds(60), remote: try RemotePolicy(allowing: [origin]))
                // Straight to nginx, as a web page from a server loads: through the egress filter
                // every byte would cross the throttled loopback twice (client to filter, filter
                // to nginx), doubling the contender's bytes and time.
                configuration.unfilteredNetwork = true
                let renderer = WebKitRenderer(configuration: configuration)
                try await renderer.start(bridge: RendererBridge { _ in })
                _ = try await renderer.loadPage(url, visible: false)
                await renderer.stop()
            } catch { outcome.withLock { $0 = error } }
            done.signal()
        }
        guard done.wait(timeout: .now() + 120) == .success else {
            FileHandle.standardError.write(Data("firstlaunch-page: not ready within 120 s\n".utf8))
            exit(3)
        }
        if let error = outcome.withLock({ $0 }) { throw error }
    }
}
