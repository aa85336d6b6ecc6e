import Foundation
import LarderPack
import LarderPublish

/// `larder-bench publish`: `larder publish --origin s3://…` of the packed corpus to a local S3
/// server (moto, Tools/s3/s3-server.py), against `s3cmd sync` and `rclone sync` of the origin
/// folder the same publish writes locally (the same files, the same bytes), each into a new
/// bucket per run, in the same run: wall time, requests the server saw and peak memory.
enum PublishBenchmark {
    struct Options {
        var sizeMB = 200
        var runs = 2
    }

    static let credentials = ["AWS_ACCESS_KEY_ID=larder-bench", "AWS_SECRET_ACCESS_KEY=larder-bench-secret", "AWS_REGION=us-east-1"]

    static func run(_ options: Options, larder: String, repository: String) throws -> Bool {
        for tool in ["s3cmd", "rclone"] where try Subprocess.shell("command -v \(tool) >/dev/null").status != 0 {
            throw BenchError("\(tool) is missing: bash Tools/setup.sh installs it")
        }
        let python = "/opt/larder-moto/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw BenchError("moto is missing: bash Tools/setup.sh installs it") }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("larder-bench-publish-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work + "/run", withIntermediateDirectories: true)
        let contenders = ["larder", "s3cmd", "rclone"]
        let buckets = (0...options.runs).flatMap { run in contenders.map { "\($0)-\(run)" } }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: python)
        server.arguments = [repository + "/Tools/s3/s3-server.py", work + "/run"] + buckets.flatMap { ["--bucket", $0] }
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
            do { try FileManager.default.removeItem(atPath: work) } catch { print("warning: could not remove \(work): \(error)") }
        }
        let endpoint = try waitForPort(work + "/run/port", server: server)

        let corpus = work + "/corpus"
        try PackBenchmark.generateCorpus(at: corpus, sizeMB: options.sizeMB)
        let packed = try Packer.pack(source: corpus, into: work + "/archives")
        let site = work + "/site"
        _ = try OriginPublisher.publish(archives: [packed.archivePath], to: site, journey: nil)
        let files = (FileManager.default.enumerator(atPath: site)?.allObjects as? [String] ?? []).filter { !isFolder(site + "/" + $0) }
        let bytes = files.reduce(Int64(0)) { $0 + fileSize(site + "/" + $1) }
        print(String(format: "origin: %d files, %.1f MB (the corpus's objects, gzip copies, archive and manifest)", files.count, Double(bytes) / 1e6))

        let s3cmdConfig = work + "/s3cfg"
        try Data("[default]\naccess_key = larder-bench\nsecret_key = larder-bench-secret\n".utf8).write(to: URL(fileURLWithPath: s3cmdConfig))
        let host = endpoint.replacingOccurrences(of: "http://", with: "")
        let commands: [String: (Int) -> [String]] = [
            "larder": { run in
                ["env"] + credentials + [larder, "publish", packed.archivePath, "--origin", "s3://larder-\(run)/site", "--endpoint", endpoint]
            },
            "s3cmd": { run in
                ["s3cmd", "-c", s3cmdConfig, "--host=\(host)", "--host-bucket=\(host)", "--no-ssl", "--quiet", "sync", site + "/", "s3://s3cmd-\(run)/site/"]
            },
            "rclone": { run in
                // The AWS SDK in rclone 1.60 refuses a custom CA bundle (AWS_CA_BUNDLE) with its
                // own transport, even for an http endpoint.
                [
                    "env", "-u", "AWS_CA_BUNDLE", "rclone", "--config", "/dev/null", "sync", site, ":s3:rclone-\(run)/site", "--s3-provider", "Other", "--s3-endpoint", endpoint,
                    "--s3-access-key-id", "larder-bench", "--s3-secret-access-key", "larder-bench-secret", "--s3-region", "us-east-1",
                    "--s3-force-path-style",
                ]
            },
        ]
        var timings = Dictionary(uniqueKeysWithValues: contenders.map { ($0, Timings(name: $0 == "larder" ? "larder publish s3://" : "\($0) sync")) })
        var requests: [String: Int] = [:]
        let log = work + "/run/requests.log"
        for run in 0...options.runs {
            // Which goes first rotates, so none always meets a calmer server.
            for index in 0..<contenders.count {
                let contender = contenders[(index + run) % contenders.count]
                let before = try lineCount(log)
                let result = try Subprocess.run(commands[contender]!(run), stdoutPath: work + "/\(contender)-\(run).out", stderrPath: work + "/\(contender)-\(run).err")
                guard result.status == 0 else {
                    let error = (try? String(contentsOfFile: work + "/\(contender)-\(run).err", encoding: .utf8)) ?? ""  // only for the message
                    throw BenchError("\(contender) failed (exit \(result.status)): \(error.suffix(400))")
                }
                requests[contender] = try lineCount(log) - before
                if run > 0 { timings[contender]!.record(result) }  // the first round is the warm-up
            }
        }
        for contender in contenders {
            print(timings[contender]!.summary + "  requests \(requests[contender]!)" + String(format: "  peak %.1f MB", Double(timings[contender]!.maxRSS) / 1e6))
        }
        let fastest = contenders.dropFirst().min { timings[$0]!.median < timings[$1]!.median }!
        var passed = report("larder publish / fastest of s3cmd and rclone (\(fastest))", timings["larder"]!.median / timings[fastest]!.median, atMost: 1.0)
        passed = report("larder publish peak memory (MiB)", Double(timings["larder"]!.maxRSS) / 1_048_576, atMost: 64) && passed
        return passed
    }

    private static func waitForPort(_ path: String, server: Process) throws -> String {
        for _ in 0..<600 {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {  // not written yet reads as nil
                return "http://127.0.0.1:\(port)"
            }
            guard server.isRunning else { throw BenchError("the S3 server (Tools/s3/s3-server.py) exited at start") }
            usleep(100_000)
        }
        throw BenchError("the S3 server did not start within 60 s")
    }

    private static func lineCount(_ path: String) throws -> Int {
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        return try Data(contentsOf: URL(fileURLWithPath: path)).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    private static func isFolder(_ path: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
    }
}
