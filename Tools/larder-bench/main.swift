import Foundation

// larder-bench: Larder's benchmarks, each measured side by side with the standard tool in the
// same run, printing ratios against the targets.

#if DEBUG
print("WARNING: this is a debug build; numbers are meaningless. Use: swift run -c release larder-bench")
#endif

let usage = """
    USAGE: larder-bench pack [--size-mb <n>] [--runs <n>] [--level <1-9>] [--corpus <dir>]
           larder-bench cache [--size-mb <n>] [--runs <n>] [--bundles <n>] [--only install|reads|scale]
           larder-bench corpus <dir> [--size-mb <n>]

    Generates a corpus of mixed web assets (default 200 MB) unless --corpus is given, then times
    'larder pack' against 'tar -czf' and 'tar -cf - | pigz -6', compares sizes, peak memory, and
    SHA-256 throughput against 'openssl dgst -sha256'. 'cache' times installing a packed
    100 MB corpus against 'tar -xzf', warm memory hits, verified disk reads and font-URL
    resolution, and 'cache ls', install and sweep with 100,000 objects in 2,000 bundles.
    Exits 1 when a target is missed.
    """

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "corpus", arguments.count >= 2 {
    let size = arguments.count == 4 && arguments[2] == "--size-mb" ? Int(arguments[3]) ?? 200 : 200
    do { try PackBenchmark.generateCorpus(at: arguments[1], sizeMB: size) } catch {
        print("larder-bench: \(error)")
        exit(1)
    }
    exit(0)
}
let binFolder0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
if arguments.first == "cache" {
    arguments.removeFirst()
    var options = CacheBenchmark.Options()
    while arguments.count >= 2 {
        let flag = arguments.removeFirst()
        let value = arguments.removeFirst()
        switch flag {
        case "--size-mb": options.sizeMB = Int(value) ?? options.sizeMB
        case "--runs": options.runs = Int(value) ?? options.runs
        case "--bundles": options.bundles = Int(value) ?? options.bundles
        case "--only": options.only = value
        default: print(usage); exit(64)
        }
    }
    do { exit(try CacheBenchmark.run(options, larder: binFolder0 + "/larder") ? 0 : 1) } catch {
        print("larder-bench: \(error)")
        exit(1)
    }
}
guard arguments.first == "pack" else {
    print(usage)
    exit(arguments.isEmpty || arguments.first == "--help" || arguments.first == "-h" ? 0 : 64)
}
arguments.removeFirst()
var options = PackBenchmark.Options()
while !arguments.isEmpty {
    let flag = arguments.removeFirst()
    guard let value = arguments.first else { print(usage); exit(64) }
    arguments.removeFirst()
    switch flag {
    case "--size-mb": options.sizeMB = Int(value) ?? options.sizeMB
    case "--runs": options.runs = Int(value) ?? options.runs
    case "--level": options.level = Int(value) ?? options.level
    case "--corpus": options.corpus = value
    default: print(usage); exit(64)
    }
}
let binFolder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
let larder = binFolder + "/larder"
guard FileManager.default.isExecutableFile(atPath: larder) else {
    print("larder-bench: build the CLI first (swift build -c release --product larder); not found at \(larder)")
    exit(1)
}
do {
    exit(try PackBenchmark.run(options, larder: larder) ? 0 : 1)
} catch {
    print("larder-bench: \(error)")
    exit(1)
}
