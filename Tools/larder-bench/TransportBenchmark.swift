import Foundation
import LarderFormat
import LarderPack
import LarderPublish

/// `larder-bench transport`: fetching over loopback from the nginx origin, beside curl and tar
/// in the same run, and the bytes a one-file update moves.
enum TransportBenchmark {
    struct Options {
        var sizeMB = 100
        var runs = 3
    }

    static func run(_ options: Options, larder: String, repository: String) throws -> Bool {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("larder-bench-transport-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let script = repository + "/Tools/origin/origin.sh"
        defer {
            _ = try? Subprocess.run(["bash", script, "stop", work + "/run"])  // best effort: the run is over
            do { try FileManager.default.removeItem(atPath: work) } catch { print("warning: could not remove \(work): \(error)") }
        }
        let corpus = work + "/corpus"
        try PackBenchmark.generateCorpus(at: corpus, sizeMB: options.sizeMB)
        let big = try Packer.pack(source: corpus, into: work + "/archives")

        // A 50-file bundle and the same bundle with one file changed.
        let small = work + "/small"
        try FileManager.default.createDirectory(atPath: small + "/assets", withIntermediateDirectories: true)
        var links = ""
        for index in 0..<49 {
            let body = (0..<40_000).map { UInt8(truncatingIfNeeded: ($0 &* 2654435761 &+ index &* 97) >> 11) }
            try Data(body).write(to: URL(fileURLWithPath: small + "/assets/a\(index).png"))
            links += "<img src=\"assets/a\(index).png\">\n"
        }
        try Data("<!doctype html>\n\(links)".utf8).write(to: URL(fileURLWithPath: small + "/index.html"))
        let before = try Packer.pack(source: small, into: work + "/archives")
        try Data("<!doctype html>\n<h1>v2</h1>\n\(links)".utf8).write(to: URL(fileURLWithPath: small + "/index.html"))
        let after = try Packer.pack(source: small, into: work + "/archives")

        _ = try OriginPublisher.publish(archives: [big.archivePath, before.archivePath, after.archivePath], to: work + "/origin", journey: nil)
        let portFile = work + "/port.txt"
        let started = try Subprocess.run(["bash", script, "start", work + "/origin", work + "/run"], stdoutPath: portFile)
        guard started.status == 0, let port = Int((try String(contentsOfFile: portFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("could not start nginx (Tools/origin/origin.sh)")
        }
        let base = "http://127.0.0.1:\(port)/"
        print(String(format: "bundle: %.1f MB archive, %d files", Double(big.archiveSize) / 1e6, big.fileCount))

        let digest = big.bundleDigest.hex
        let (larderTimes, curlTimes) = try headToHead(
            work: work, runs: options.runs, larder: "larder cache fetch (full)", tool: "curl -s URL | tar -xzf -",
            larder: { cache in
                try Subprocess.run([larder, "cache", "fetch", digest, "--origin", base, "--cache", cache], stdoutPath: "/dev/null")
            },
            tool: { extract in try Subprocess.shell("curl -s '\(base)bundles/\(digest).tar.gz' | tar -xzf - -C '\(extract)'") })

        // One-file update: fetch v1, then v2, and compare what v2 moved with the full archive.
        let cache = work + "/update-cache"
        guard try Subprocess.run([larder, "cache", "fetch", before.bundleDigest.hex, "--origin", base, "--cache", cache], stdoutPath: "/dev/null").status == 0 else {
            throw BenchError("fetch of the first revision failed")
        }
        let reportPath = work + "/update.json"
        guard try Subprocess.run([larder, "cache", "fetch", after.bundleDigest.hex, "--origin", base, "--cache", cache, "--json"], stdoutPath: reportPath).status == 0,
            case .object(let fields) = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: reportPath)))),
            case .int(let moved) = fields["bytesDownloaded"]
        else { throw BenchError("fetch of the second revision failed") }
        print("one-file update of a 50-file bundle: \(moved) bytes moved; the full archive is \(after.archiveSize) bytes")

        // One media file cached (of 1,647): too little for the objects path (FetchRoute, 5%),
        // so the fetch takes the archive; its bytes against the archive's.
        let seedOne = try seedBundle(from: corpus, every: Int.max, work: work, name: "one")
        let oneCache = work + "/one-cache"
        guard try Subprocess.run([larder, "cache", "install", seedOne, "--cache", oneCache], stdoutPath: "/dev/null").status == 0,
            try Subprocess.run([larder, "cache", "fetch", digest, "--origin", base, "--cache", oneCache, "--json"], stdoutPath: oneCache + ".json").status == 0
        else { throw BenchError("the fetch with one file cached failed") }
        let objectBytes = try bytesDownloaded(oneCache + ".json")
        // What a fetch into an empty cache moves: the archive and the manifest (not compressed,
        // 0.5% of this archive), the yardstick for any route. With one file cached and patches
        // on (`cache fetch`), the fetch also reads the patch index to learn whether patches make
        // up the share (here a 404 of a few hundred bytes): the target leaves it 0.1%.
        let manifestBytes = try FileManager.default.attributesOfItem(atPath: work + "/origin/bundles/\(digest)/manifest.json")[.size] as? Int64 ?? 0

        // Compressed objects: a cache holding every second media file of the corpus fetches the
        // rest object by object (gzip-encoded where the origin has a copy), against curl | tar
        // of the archive.
        let seedHalf = try seedBundle(from: corpus, every: 2, work: work, name: "half")
        try FileManager.default.createDirectory(atPath: work + "/objects", withIntermediateDirectories: true)
        let objectRuns = try headToHead(
            work: work + "/objects", runs: options.runs, larder: "larder cache fetch (objects, half the media cached)", tool: "curl -s URL | tar -xzf -",
            larder: { cache in
                guard try Subprocess.run([larder, "cache", "install", seedHalf, "--cache", cache], stdoutPath: "/dev/null").status == 0 else {
                    throw BenchError("cannot seed the cache")
                }
                _ = try Subprocess.run(["sync"])
                return try Subprocess.run([larder, "cache", "fetch", digest, "--origin", base, "--cache", cache, "--json"], stdoutPath: cache + ".json")
            },
            tool: { extract in try Subprocess.shell("curl -s '\(base)bundles/\(digest).tar.gz' | tar -xzf - -C '\(extract)'") })
        let halfBytes = try bytesDownloaded(work + "/objects/cache-1.json")
        let (oneRoute, halfRoute) = (try source(oneCache + ".json"), try source(work + "/objects/cache-1.json"))
        print(String(format: "bytes moved: whole archive %.1f MB, with one media file cached (%@) %.1f MB, with half the media cached (%@) %.1f MB",
            Double(big.archiveSize) / 1e6, oneRoute, Double(objectBytes) / 1e6, halfRoute, Double(halfBytes) / 1e6))

        // Peak memory of a fetch does not grow with the bundle: the 50-file bundle against the corpus.
        var smallRSS = 0
        for run in 0..<3 {
            let result = try Subprocess.run(
                [larder, "cache", "fetch", before.bundleDigest.hex, "--origin", base, "--cache", work + "/small-\(run)"], stdoutPath: "/dev/null")
            smallRSS = max(smallRSS, result.peakRSS)
        }
        print(String(format: "peak memory of a fetch: %.1f MB for %.1f MB, %.1f MB for %.1f MB",
            Double(smallRSS) / 1e6, Double(before.archiveSize) / 1e6, Double(larderTimes.maxRSS) / 1e6, Double(big.archiveSize) / 1e6))

        var passed = true
        passed = report("full fetch + install / curl | tar -xzf", larderTimes.median / curlTimes.median, atMost: 1.2) && passed
        _ = report("objects (half cached) fetch + install / curl | tar -xzf", objectRuns.larder.median / objectRuns.tool.median)
        passed = report("one-file update bytes / full archive", Double(moved) / Double(after.archiveSize), atMost: 0.05) && passed
        _ = report("one cached bytes / full archive", Double(objectBytes) / Double(big.archiveSize))
        passed = report("one cached bytes / archive + manifest", Double(objectBytes) / Double(big.archiveSize + manifestBytes), atMost: 1.001) && passed
        passed = report("half the media cached bytes / full archive", Double(halfBytes) / Double(big.archiveSize), atMost: 0.75) && passed
        passed = report("peak memory: corpus fetch / 50-file fetch", Double(larderTimes.maxRSS) / Double(smallRSS), atMost: 1.5) && passed
        return passed
    }

    /// A bundle of some of the corpus's media files (every `every`-th, or just the first) and a
    /// page: installed in a cache, half the media makes the corpus's fetch take the objects path;
    /// one file is too little for it (`FetchRoute`: under 5% of the bytes), so that fetch
    /// takes the archive.
    static func seedBundle(from corpus: String, every: Int, work: String, name: String) throws -> String {
        let folder = work + "/seed-\(name)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let media = Set(["png", "jpg", "webp", "woff2", "woff", "ttf", "json", "mp4", "svg"])
        let files = (FileManager.default.enumerator(atPath: corpus)?.allObjects as? [String] ?? []).sorted()
            .filter { media.contains(($0 as NSString).pathExtension.lowercased()) }
        let chosen = every == Int.max ? Array(files.prefix(1)) : files.enumerated().filter { $0.offset % every == 0 }.map(\.element)
        for file in chosen {
            let target = folder + "/" + file
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: corpus + "/" + file, toPath: target)
        }
        try Data("<!doctype html><p>seed</p>".utf8).write(to: URL(fileURLWithPath: folder + "/index.html"))
        return try Packer.pack(source: folder, into: work + "/seed-archives").archivePath
    }

    /// The route a `cache fetch --json` report names (`archive`, `objects`).
    static func source(_ reportPath: String) throws -> String {
        guard case .object(let fields) = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: reportPath)))),
            case .string(let source) = fields["source"]
        else { throw BenchError("no source in \(reportPath)") }
        return source
    }

    static func bytesDownloaded(_ reportPath: String) throws -> Int64 {
        guard case .object(let fields) = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: reportPath)))),
            case .int(let bytes) = fields["bytesDownloaded"]
        else { throw BenchError("no bytesDownloaded in \(reportPath)") }
        return bytes
    }
}
