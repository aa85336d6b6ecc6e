import Foundation
import LarderFormat

/// `larder-bench pack`: `larder pack` against `tar -czf` and `tar | pigz -6` on one generated
/// corpus and on the real-world set (six Debian-packaged sites), in the same run, plus hashing
/// throughput against `openssl dgst -sha256`.
enum PackBenchmark {
    struct Options {
        var sizeMB = 200
        var runs = 3
        var corpus: String?
        var level = 6
    }

    static func run(_ options: Options, larder: String) throws -> Bool {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("larder-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: work) } catch { print("warning: could not remove \(work): \(error)") }
        }

        let corpus: String
        if let given = options.corpus {
            corpus = given
        } else {
            corpus = work + "/corpus"
            try generateCorpus(at: corpus, sizeMB: options.sizeMB)
        }

        let times = try raceContenders(
            larder: larder, name: "larder pack --level \(options.level)", sources: [corpus], root: corpus, stem: "", work: work,
            options: options)
        let archive = try FileManager.default.contentsOfDirectory(atPath: times.larderOut).first { $0.hasSuffix(".tar.gz") }
        let larderSize = fileSize(times.larderOut + "/" + (archive ?? "missing"))
        let gzipSize = fileSize(times.tarOut)
        print("sizes: larder \(larderSize) B, tar -czf \(gzipSize) B, pigz \(fileSize(times.pigzOut)) B")
        print(String(format: "peak RSS of larder pack: %.1f MiB", Double(times.larder.maxRSS) / 1_048_576))

        // Hashing: one large file, libcrypto through SHA256Hasher against the openssl tool.
        let big = work + "/hash-input.bin"
        try makeHashInput(at: big, from: corpus, bytes: 256 << 20)
        var hashTimes = Timings(name: "SHA256Hasher (in process)")
        var opensslTimes = Timings(name: "openssl dgst -sha256")
        _ = try hashFile(big)
        _ = try Subprocess.run(["openssl", "dgst", "-sha256", big], stdoutPath: "/dev/null")
        for _ in 0..<max(3, options.runs) {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try hashFile(big)
            hashTimes.seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            opensslTimes.seconds.append(try Subprocess.run(["openssl", "dgst", "-sha256", big], stdoutPath: "/dev/null").seconds)
        }
        print(hashTimes.summary)
        print(opensslTimes.summary)

        print("ratios (pack, level \(options.level)):")
        var passed = true
        // Issue 14's goals, the same on both corpora.
        passed = report("larder / tar -czf wall time", times.larder.median / times.tar.median, atMost: 0.25) && passed
        passed = report("larder / pigz -6 wall time", times.larder.median / times.pigz.median, atMost: 0.5) && passed
        passed = report("larder size / gzip -6 size", Double(larderSize) / Double(gzipSize), atMost: 1.0) && passed
        passed = report("hash throughput larder / openssl", opensslTimes.median / hashTimes.median, atLeast: 0.85) && passed
        passed = report("larder peak RSS (MiB)", Double(times.larder.maxRSS) / 1_048_576, atMost: 64) && passed
        print()
        passed = try runRealWorld(options, larder: larder, work: work) && passed
        return passed
    }

    /// Writes the benchmark corpus, with a root `index.html` linking every flow so the whole
    /// corpus packs as one bundle.
    static func generateCorpus(at corpus: String, sizeMB: Int) throws {
        let started = Date()
        let summary = try Corpus.generate(at: URL(fileURLWithPath: corpus), totalBytes: sizeMB * 1_000_000)
        let flows = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { $0.hasPrefix("flow-") }.sorted()
        let menu = "<!doctype html>\n<ul>\n" + flows.map { "<li><a href=\"\($0)/index.html\">\($0)</a></li>\n" }.joined() + "</ul>\n"
        try Data(menu.utf8).write(to: URL(fileURLWithPath: corpus + "/index.html"))
        print(String(format: "corpus: %d files, %.1f MB in %.1f s", summary.fileCount + 1, Double(summary.totalBytes) / 1e6, Date().timeIntervalSince(started)))
        for (kind, bytes) in summary.bytesByKind.sorted(by: { $0.key < $1.key }) {
            print(String(format: "  %-6@ %6.1f MB", kind as NSString, Double(bytes) / 1e6))
        }
    }

    /// Concatenates corpus files into one file of `bytes` bytes (repeating if needed).
    static func makeHashInput(at path: String, from corpus: String, bytes: Int) throws {
        guard let enumerator = FileManager.default.enumerator(atPath: corpus) else { throw BenchError("cannot list \(corpus)") }
        let files = (enumerator.allObjects as? [String] ?? []).sorted().map { corpus + "/" + $0 }
        let output = try AtomicFileWriter(folder: (path as NSString).deletingLastPathComponent, prefix: "hash-input")
        var written = 0
        outer: while written < bytes {
            for file in files {
                guard let data = FileManager.default.contents(atPath: file), !data.isEmpty else { continue }
                let count = min(data.count, bytes - written)
                try data.prefix(count).withUnsafeBytes { try output.write($0) }
                written += count
                if written >= bytes { break outer }
            }
        }
        try output.commit(to: path)
    }

    static func hashFile(_ path: String) throws -> Digest {
        let file = try ReadableFile(path: path)
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let count = try file.read(into: buffer)
            if count == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return hasher.finalize()
    }
}
