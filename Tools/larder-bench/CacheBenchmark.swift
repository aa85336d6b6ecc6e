import Foundation
import LarderCache
import LarderFormat

/// `larder-bench cache`: the cache's install, read, font and scale figures, each beside the
/// standard tool or target it is held to, in one run.
enum CacheBenchmark {
    struct Options {
        var sizeMB = 100
        var runs = 3
        var bundles = 2000
        var filesPerBundle = 50
        /// "install", "reads" or "scale" to run one part; nil for all.
        var only: String?
    }

    static func run(_ options: Options, larder: String) throws -> Bool {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("larder-bench-cache-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: work) } catch { print("warning: could not remove \(work): \(error)") }
        }
        var passed = true
        if options.only == nil || options.only == "install" { passed = try installAgainstTar(options, larder: larder, work: work) && passed }
        if options.only == nil || options.only == "reads" { passed = try readLatencies(work: work) && passed }
        if options.only == nil || options.only == "scale" { passed = try scale(options, larder: larder, work: work) && passed }
        return passed
    }

    // MARK: Install against tar -xzf

    static func installAgainstTar(_ options: Options, larder: String, work: String) throws -> Bool {
        let corpus = work + "/corpus"
        try PackBenchmark.generateCorpus(at: corpus, sizeMB: options.sizeMB)
        let pack = try Subprocess.run([larder, "pack", corpus, "-o", work + "/archive", "--json"], stdoutPath: work + "/pack.json")
        guard pack.status == 0 else { throw BenchError("pack failed") }
        guard let name = try FileManager.default.contentsOfDirectory(atPath: work + "/archive").first else { throw BenchError("no archive") }
        let archive = work + "/archive/" + name
        print(String(format: "archive: %.1f MB", Double(fileSize(archive)) / 1e6))

        let (larderTimes, tarTimes) = try headToHead(
            work: work, runs: options.runs, larder: "larder cache install", tool: "tar -xzf",
            larder: { cache in try Subprocess.run([larder, "cache", "install", archive, "--cache", cache], stdoutPath: "/dev/null") },
            tool: { extract in try Subprocess.run(["tar", "-xzf", archive, "-C", extract]) })
        return report("install (verify + sync) / tar -xzf", larderTimes.median / tarTimes.median, atMost: 1.0)
    }

    // MARK: Read latencies

    /// Nanoseconds per call, measured in batches so the clock's own cost stays out.
    static func latencies(batches: Int = 2000, batch: Int = 50, _ body: () throws -> Void) rethrows -> [Double] {
        var samples: [Double] = []
        samples.reserveCapacity(batches)
        for _ in 0..<batches {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<batch { try body() }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(batch))
        }
        return samples
    }

    static func readLatencies(work: String) throws -> Bool {
        let small = Array("body { color: #333 }".utf8)
        let object = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) }
        let font = (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 40503 >> 3) }
        let archive = try bundleArchive(
            name: "latency", files: ["index.html": Array("<p>".utf8), "a.css": small, "img/photo.jpg": object, "fonts/f.woff2": font])
        var passed = true

        // Memory tier: a warm hit through a lease.
        let warm = try LarderCache(at: work + "/latency-warm")
        let digest = try install(archive, into: warm)
        let lease = try warm.lease(digest)
        var sink = 0
        _ = try lease.data(at: "a.css")
        let hits = try latencies { sink &+= try lease.data(at: "a.css").count }
        print(String(format: "warm memory hit (lease.data):     p50 %.0f ns, p99 %.0f ns", percentile(hits, 0.5), percentile(hits, 0.99)))
        passed = report("warm memory hit p50 (us)", percentile(hits, 0.5) / 1000, atMost: 1.0) && passed

        let url = FontURL(digest: SHA256Hasher.hash(font))
        _ = try warm.resolveFont(url)
        let fonts = try latencies { sink &+= try warm.resolveFont(url).bytes.count }
        print(String(format: "font URL resolution (warm):        p50 %.0f ns, p99 %.0f ns", percentile(fonts, 0.5), percentile(fonts, 0.99)))
        passed = report("font-URL resolution p50 (us)", percentile(fonts, 0.5) / 1000, atMost: 2.0) && passed

        // Disk: no memory tier, so every read goes to the file, verified once before.
        var configuration = LarderCache.Configuration(memoryBudget: 0)
        configuration.memoryEntryLimit = 0
        let cold = try LarderCache(at: work + "/latency-disk", configuration: configuration)
        let coldDigest = try install(archive, into: cold)
        let coldLease = try cold.lease(coldDigest)
        _ = try coldLease.data(at: "img/photo.jpg")
        let reads = try latencies(batches: 2000, batch: 5) { sink &+= try coldLease.data(at: "img/photo.jpg").count }
        print(String(format: "verified disk read of 20 kB:       p50 %.1f us, p99 %.1f us", percentile(reads, 0.5) / 1000, percentile(reads, 0.99) / 1000))
        passed = report("verified 20 kB disk read p50 (us)", percentile(reads, 0.5) / 1000, atMost: 50) && passed
        lease.release()
        coldLease.release()
        if sink == 42 { print("") }  // keeps the reads from being optimised away
        return passed
    }

    // MARK: Scale: 100,000 objects in 2,000 bundles

    static func scale(_ options: Options, larder: String, work: String) throws -> Bool {
        let root = work + "/scale"
        let cache = try LarderCache(at: root)
        let started = Date()
        for index in 0..<options.bundles {
            _ = try install(try syntheticBundle(index, files: options.filesPerBundle), into: cache)
        }
        let stats = try cache.statistics()
        print(String(format: "filled: %d bundles, %d objects in %.1f s", stats.bundles, stats.objects, Date().timeIntervalSince(started)))

        var lsTimes = Timings(name: "larder cache ls (\(stats.bundles) bundles)")
        for _ in 0..<max(3, options.runs) {
            lsTimes.record(try Subprocess.run([larder, "cache", "ls", "--cache", root], stdoutPath: "/dev/null"))
        }
        print(lsTimes.summary)

        // One more bundle into the full cache and into an empty one, alternately.
        var full = Timings(name: "install into the full cache")
        var empty = Timings(name: "install into an empty cache")
        for run in 0..<max(101, options.runs) {
            let archive = try syntheticBundle(1_000_000 + run, files: options.filesPerBundle)
            let emptyCache = try LarderCache(at: work + "/empty-\(run)")
            func timed(_ target: LarderCache) throws -> Double {
                _ = try Subprocess.run(["sync"])
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try install(archive, into: target)
                return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            }
            if run % 2 == 0 {  // alternate which goes first
                empty.seconds.append(try timed(emptyCache))
                full.seconds.append(try timed(cache))
            } else {
                full.seconds.append(try timed(cache))
                empty.seconds.append(try timed(emptyCache))
            }
        }
        print(full.summary)
        print(empty.summary)

        // A full sweep over every object, with crash leftovers to remove.
        for stray in 0..<1000 {
            let hex = SHA256Hasher.hash(Array("stray \(stray)".utf8)).hex
            let folder = root + "/objects/" + hex.prefix(2)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data("left by a crash".utf8).write(to: URL(fileURLWithPath: folder + "/" + hex.dropFirst(2)))
        }
        let sweepStart = DispatchTime.now().uptimeNanoseconds
        guard let sweep = try cache.sweep() else { throw BenchError("another process is sweeping") }
        let sweepSeconds = Double(DispatchTime.now().uptimeNanoseconds - sweepStart) / 1e9
        print(String(format: "full sweep of %d objects: %.3f s (%d stray files removed)", try cache.statistics().objects, sweepSeconds, sweep.strayFiles.count))

        // What a patched fetch asks before choosing bases: which of 1,000 digests (half of
        // them stored) the full cache holds, in one query, against one query per digest.
        var stored: [Digest] = []
        for bundle in try cache.bundles().prefix(20) { stored += try cache.manifest(bundle.digest).files.map(\.digest) }
        let asked = Set(stored.prefix(500) + (0..<500).map { SHA256Hasher.hash(Array("not stored \($0)".utf8)) })
        let oneStart = DispatchTime.now().uptimeNanoseconds
        let held = try cache.heldObjects(among: asked)
        let oneQuery = Double(DispatchTime.now().uptimeNanoseconds - oneStart) / 1e6
        let eachStart = DispatchTime.now().uptimeNanoseconds
        var heldEach = 0
        for digest in asked where try cache.holdsObject(digest) { heldEach += 1 }
        let perDigest = Double(DispatchTime.now().uptimeNanoseconds - eachStart) / 1e6
        guard held.count == heldEach else { throw BenchError("heldObjects found \(held.count), holdsObject \(heldEach)") }
        print(String(format: "patch bases held among %d digests (%d held): one query %.1f ms, a query each %.1f ms", asked.count, held.count, oneQuery, perDigest))

        var passed = true
        passed = report("cache ls with 2,000 bundles (ms)", lsTimes.median * 1000, atMost: 300) && passed
        passed = report("install full cache / empty cache", full.median / empty.median, atMost: 1.2) && passed
        passed = report("full sweep of 100,000 objects (s)", sweepSeconds, atMost: 3) && passed
        passed = report("1,000 patch bases asked at once (ms)", oneQuery, atMost: 100) && passed
        return passed
    }

    static func install(_ archive: [UInt8], into cache: LarderCache) throws -> Digest {
        var offset = 0
        return try cache.install { (buffer) throws(FormatError) in
            let count = min(buffer.count, archive.count - offset)
            archive.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
            offset += count
            return count
        }.bundle
    }

    /// A bundle of `files` small, distinct text files.
    static func syntheticBundle(_ index: Int, files: Int) throws -> [UInt8] {
        var contents: [String: [UInt8]] = ["index.html": Array("<!doctype html><title>flow \(index)</title>".utf8)]
        for file in 1..<files {
            contents["assets/f\(file).css"] = Array(".flow-\(index)-\(file) { margin: \(file)px; padding: \(index % 97)px }\n".utf8)
        }
        return try bundleArchive(name: "flow-\(index)", files: contents)
    }

    static func bundleArchive(name: String, files: [String: [UInt8]]) throws -> [UInt8] {
        let manifest = try Manifest(
            name: name, entry: "index.html", renderer: .init(),
            files: files.map { path, bytes in
                Manifest.File(
                    path: path, digest: SHA256Hasher.hash(bytes), size: Int64(bytes.count), mediaType: MediaType.classify(path).mediaType,
                    role: MediaType.classify(path).role, essential: true)
            })
        var output: [UInt8] = []
        let gzip = ParallelGzipWriter(level: 6, concurrency: 1) { (bytes) throws(FormatError) in output.append(contentsOf: bytes) }
        let tar = try TarWriter { (bytes) throws(FormatError) in try gzip.write(bytes) }
        try tar.addFile(path: Manifest.entryName, bytes: manifest.canonicalBytes)
        for file in manifest.files { try tar.addFile(path: file.path, bytes: files[file.path]!) }
        try tar.finish()
        try gzip.finish()
        return output
    }
}
