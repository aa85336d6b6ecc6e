import Foundation

// larder-bench: Larder's benchmarks, each measured side by side with the standard tool in the
// same run, printing ratios against the targets.

#if DEBUG
print("WARNING: this is a debug build; numbers are meaningless. Use: swift run -c release larder-bench")
#endif

let usage = """
    USAGE: larder-bench pack [--size-mb <n>] [--runs <n>] [--level <1-9>] [--corpus <dir>]
           larder-bench cache [--size-mb <n>] [--runs <n>] [--bundles <n>] [--only install|reads|scale]
           larder-bench transport [--size-mb <n>] [--runs <n>]
           larder-bench host [--runs <n>]
           larder-bench render [--runs <n>] [--colds <n>]
           larder-bench render --soak [--cycles <n>] [--unloads <n>]
           larder-bench firstlaunch [--runs <n>]
           larder-bench publish [--size-mb <n>] [--runs <n>]
           larder-bench patch [--runs <n>]
           larder-bench corpus <dir> [--size-mb <n>]

    Generates a corpus of mixed web assets (default 200 MB) unless --corpus is given, then times
    'larder pack' against 'tar -czf' and 'tar -cf - | pigz -6', compares sizes, peak memory, and
    SHA-256 throughput against 'openssl dgst -sha256'; then the same for the real-world set (six
    Debian-packaged sites that Tools/setup.sh installs, packed in one run). 'cache' times installing a packed
    100 MB corpus against 'tar -xzf', warm memory hits, verified disk reads and font-URL
    resolution, and 'cache ls', install and sweep with 100,000 objects in 2,000 bundles.
    'transport' starts nginx on 127.0.0.1 (Tools/origin) and times 'larder cache fetch' of a
    packed 100 MB corpus against 'curl -s URL | tar -xzf -', and measures the bytes a one-file
    update of a 50-file bundle moves. 'host' times offline prepare-to-ready of each sample bundle
    from a warm cache (a new cache, host and headless renderer per run, p50 and p99, default
    200 runs) against reading and hashing the same essential files once. 'render' times the web
    engine (WebKitGTK, Xvfb when there is no display): warm prepare-to-ready of each sample from
    the cache against the same engine loading the unpacked folder from nginx on 127.0.0.1
    (p50/p99, default 50 runs), then cold engine start to first ready and peak memory in new
    processes ('render-cold <cache> <bundle-hex>', default 5). 'render --soak' runs one journey
    host with the web engine in one process for 1,000 prepare/present/dismiss cycles and 100
    memory-warning unload/reload cycles, sampling the UI, web and network processes' memory.
    'firstlaunch' (as root) makes a network namespace whose loopback is a 1.6 Mbit/s link (tc
    tbf) and times, from an empty cache, 'larder journey prepare --renderer webkit' of each sample packed with the font
    pipeline and with "woff2": false against the engine loading the unpacked folder from nginx
    (gzip on), with the bytes the link carried; and 'larder pack' with an empty and a warm font
    cache. 'publish' starts moto's S3 server on 127.0.0.1 (Tools/s3) and times 'larder publish
    --origin s3://…' of the packed corpus (default 200 MB) against 's3cmd sync' and 'rclone sync'
    of the origin folder the same publish writes, each into a new bucket, with the requests the
    server saw and peak memory. 'patch' takes realistic edits (a line in MathJax.js, a price in
    HTML, a colour in Bootstrap's CSS, jQuery minified twice with one change, a PNG swapped) and
    prints the bytes a device holding the old file moves: per object, with Larder's patch, with
    'bsdiff' and with 'zstd --patch-from --ultra -22', and the time to apply a patch against
    reading and verifying the object.
    Exits 1 when a target is missed.
    """

/// Flags after the subcommand, as `--name value` pairs; exits 64 on anything else.
func flags(_ arguments: ArraySlice<String>, allowed: Set<String>) -> [String: String] {
    var result: [String: String] = [:]
    var rest = arguments
    while let flag = rest.popFirst() {
        guard allowed.contains(flag), let value = rest.popFirst() else {
            print(usage)
            exit(64)
        }
        result[flag] = value
    }
    return result
}

let arguments = Array(CommandLine.arguments.dropFirst())
let binFolder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
let larder = binFolder + "/larder"
/// The repository this binary was built from (`<repository>/.build/<triple>/release/`): the
/// sample bundles and the origin and S3 server scripts live there.
let repository = URL(fileURLWithPath: binFolder).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

do {
    switch arguments.first {
    case "corpus" where arguments.count >= 2:
        let options = flags(arguments.dropFirst(2), allowed: ["--size-mb"])
        try PackBenchmark.generateCorpus(at: arguments[1], sizeMB: options["--size-mb"].flatMap { Int($0) } ?? 200)
        exit(0)
    case "host":
        let given = flags(arguments.dropFirst(), allowed: ["--runs"])
        var options = HostBenchmark.Options()
        options.runs = given["--runs"].flatMap { Int($0) } ?? options.runs
        guard options.runs > 0 else {
            print(usage)
            exit(64)
        }
        exit(try HostBenchmark.run(options, repository: repository) ? 0 : 1)
    case "render" where arguments.dropFirst().first == "--soak":
        let given = flags(arguments.dropFirst(2), allowed: ["--cycles", "--unloads"])
        var options = RenderSoak.Options()
        options.cycles = given["--cycles"].flatMap { Int($0) } ?? options.cycles
        options.unloads = given["--unloads"].flatMap { Int($0) } ?? options.unloads
        options.warmUp = min(options.warmUp, options.cycles / 2)
        guard options.cycles >= 2 * options.sampleEvery, options.unloads > 0 else {
            print(usage)
            exit(64)
        }
        exit(try RenderSoak.run(options, repository: repository) ? 0 : 1)
    case "render":
        let given = flags(arguments.dropFirst(), allowed: ["--runs", "--colds"])
        var options = RenderBenchmark.Options()
        options.runs = given["--runs"].flatMap { Int($0) } ?? options.runs
        options.colds = given["--colds"].flatMap { Int($0) } ?? options.colds
        guard options.runs > 0, options.colds > 0 else {
            print(usage)
            exit(64)
        }
        exit(try RenderBenchmark.run(options, repository: repository, binary: binFolder + "/larder-bench") ? 0 : 1)
    case "firstlaunch":
        let given = flags(arguments.dropFirst(), allowed: ["--runs"])
        var options = FirstLaunchBenchmark.Options()
        options.runs = given["--runs"].flatMap { Int($0) } ?? options.runs
        guard options.runs > 0 else {
            print(usage)
            exit(64)
        }
        exit(try FirstLaunchBenchmark.run(options, repository: repository, binFolder: binFolder) ? 0 : 1)
    case "firstlaunch-page" where arguments.count == 2:
        try FirstLaunchBenchmark.runPageChild(url: arguments[1])
        exit(0)
    case "render-cold" where arguments.count == 3:
        try RenderBenchmark.runColdChild(cache: arguments[1], bundle: arguments[2])
        exit(0)
    case "patch":
        let given = flags(arguments.dropFirst(), allowed: ["--runs"])
        var options = PatchBenchmark.Options()
        options.runs = given["--runs"].flatMap { Int($0) } ?? options.runs
        guard options.runs > 0 else {
            print(usage)
            exit(64)
        }
        exit(try PatchBenchmark.run(options, repository: repository) ? 0 : 1)
    case "publish":
        let given = flags(arguments.dropFirst(), allowed: ["--size-mb", "--runs"])
        var options = PublishBenchmark.Options()
        options.sizeMB = given["--size-mb"].flatMap { Int($0) } ?? options.sizeMB
        options.runs = given["--runs"].flatMap { Int($0) } ?? options.runs
        guard options.runs > 0, options.sizeMB > 0 else {
            print(usage)
            exit(64)
        }
        exit(try PublishBenchmark.run(options, larder: larder, repository: repository) ? 0 : 1)
    case "pack", "cache", "transport":
        guard FileManager.default.isExecutableFile(atPath: larder) else {
            print("larder-bench: build the CLI first (swift build -c release --product larder); not found at \(larder)")
            exit(1)
        }
        if arguments[0] == "transport" {
            let given = flags(arguments.dropFirst(), allowed: ["--size-mb", "--runs"])
            var options = TransportBenchmark.Options()
            options.sizeMB = given["--size-mb"].flatMap { Int($0) } ?? options.sizeMB
            options.runs = given["--runs"].flatMap { Int($0) } ?? options.runs
            exit(try TransportBenchmark.run(options, larder: larder, repository: repository) ? 0 : 1)
        } else if arguments[0] == "pack" {
            let given = flags(arguments.dropFirst(), allowed: ["--size-mb", "--runs", "--level", "--corpus"])
            var options = PackBenchmark.Options()
            options.sizeMB = given["--size-mb"].flatMap { Int($0) } ?? options.sizeMB
            options.runs = given["--runs"].flatMap { Int($0) } ?? options.runs
            options.level = given["--level"].flatMap { Int($0) } ?? options.level
            options.corpus = given["--corpus"]
            exit(try PackBenchmark.run(options, larder: larder) ? 0 : 1)
        } else {
            let given = flags(arguments.dropFirst(), allowed: ["--size-mb", "--runs", "--bundles", "--only"])
            var options = CacheBenchmark.Options()
            options.sizeMB = given["--size-mb"].flatMap { Int($0) } ?? options.sizeMB
            options.runs = given["--runs"].flatMap { Int($0) } ?? options.runs
            options.bundles = given["--bundles"].flatMap { Int($0) } ?? options.bundles
            options.only = given["--only"]
            exit(try CacheBenchmark.run(options, larder: larder) ? 0 : 1)
        }
    default:
        print(usage)
        exit(arguments.isEmpty || arguments.first == "--help" || arguments.first == "-h" ? 0 : 64)
    }
} catch {
    print("larder-bench: \(error)")
    exit(1)
}
