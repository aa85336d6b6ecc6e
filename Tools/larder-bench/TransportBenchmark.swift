import Foundation
import LarderFormat
import LarderPack

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

        var passed = true
        passed = report("full fetch + install / curl | tar -xzf", larderTimes.median / curlTimes.median, atMost: 1.2) && passed
        passed = report("one-file update bytes / full archive", Double(moved) / Double(after.archiveSize), atMost: 0.05) && passed
        return passed
    }
}
