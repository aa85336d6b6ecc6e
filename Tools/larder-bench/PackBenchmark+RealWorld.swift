import Foundation
import LarderToolSupport

extension PackBenchmark {
    /// The real-world set (Debian's Font Awesome 4.7, Bootstrap 4, jQuery UI base theme,
    /// MathJax 2.7, Read-the-Docs theme and Python 3.11 docs, prepared as the tests prepare
    /// them): one `larder pack` of the six folders against `tar -czf` and `tar | pigz -6` of
    /// the folder that holds them, in the same run, interleaved.
    /// - Returns: whether every ratio met its goal.
    static func runRealWorld(_ options: Options, larder: String, work: String) throws -> Bool {
        let root = work + "/realworld"
        var sources: [String] = []
        for source in RealWorldSource.allCases {
            let folder = root + "/" + source.rawValue
            try source.prepare(at: folder)
            sources.append(folder)
        }
        var totalBytes: Int64 = 0
        var fileCount = 0
        if let enumerator = FileManager.default.enumerator(atPath: root) {
            while let path = enumerator.nextObject() as? String {
                let size = fileSize(root + "/" + path)
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder), !isFolder.boolValue {
                    totalBytes += size
                    fileCount += 1
                }
            }
        }
        print(String(format: "real-world set: %d folders, %d files, %.1f MB", sources.count, fileCount, Double(totalBytes) / 1e6))

        let times = try raceContenders(
            larder: larder, name: "larder pack (6 folders)", sources: sources, root: root, stem: "realworld-", work: work,
            options: options, warnings: work + "/realworld-larder.warnings")
        let archives = try FileManager.default.contentsOfDirectory(atPath: times.larderOut).filter { $0.hasSuffix(".tar.gz") }
        guard archives.count == sources.count else { throw BenchError("expected \(sources.count) archives, found \(archives.count)") }
        let larderSize = archives.reduce(Int64(0)) { $0 + fileSize(times.larderOut + "/" + $1) }
        let gzipSize = fileSize(times.tarOut)
        print("sizes: larder \(larderSize) B (6 archives), tar -czf \(gzipSize) B, pigz \(fileSize(times.pigzOut)) B")
        print(String(format: "peak RSS of larder pack: %.1f MiB", Double(times.larder.maxRSS) / 1_048_576))
        print("ratios (real-world set, level \(options.level)):")
        var passed = true
        passed = report("larder / tar -czf wall time", times.larder.median / times.tar.median, atMost: 0.25) && passed
        passed = report("larder / pigz -6 wall time", times.larder.median / times.pigz.median, atMost: 0.5) && passed
        passed = report("larder size / gzip -6 size", Double(larderSize) / Double(gzipSize), atMost: 1.0) && passed
        passed = report("larder peak RSS (MiB)", Double(times.larder.maxRSS) / 1_048_576, atMost: 64) && passed
        return passed
    }
}
