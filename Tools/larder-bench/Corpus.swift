import Foundation
import Glibc

/// A generated corpus of web assets for `larder-bench pack`.
struct CorpusSummary: Sendable {
    var root: URL
    var fileCount: Int
    var totalBytes: Int
    var bytesByKind: [String: Int]   // "html", "css", "js", "json", "svg", "font", "image"
}

/// Why a corpus could not be generated.
struct CorpusError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { "corpus generation failed: \(message)" }
}

enum Corpus {
    /// Writes a deterministic corpus of mixed web assets of about `totalBytes` into `root`
    /// (created if missing; must be empty or absent). Same seed -> byte-identical files.
    static func generate(at root: URL, totalBytes: Int, seed: UInt64 = 42) throws -> CorpusSummary {
        let rootPath = root.standardizedFileURL.path
        try prepareRoot(rootPath)
        var sink = Sink(root: rootPath)
        let goal = max(0, totalBytes)
        if goal > 0 {
            let fonts = FontLibrary(directory: fontDirectory)
            var sizing = RNG(seed: seed ^ 0xC0FF_EE00_D15E_A5E5)
            var fontTarget = 0.0
            var fontWritten = 0
            var folder = 0
            while sink.total < goal {
                let remaining = goal - sink.total
                if folder > 0 && remaining < 16 * 1024 { break }
                folder += 1
                let bigVendor = sizing.chance(0.1)
                var budget = bigVendor
                    ? sizing.range(2_600_000, 3_200_000)
                    : sizing.range(1_000_000, 2_600_000)
                if budget >= remaining || remaining - budget < 600_000 { budget = remaining }
                fontTarget += fontShare * Double(budget)
                var gen = FolderGen(
                    flow: folderName(folder),
                    seed: seed ^ (UInt64(folder) &* 0xD1B5_4A32_D192_ED03))
                fontWritten += try gen.build(
                    budget: budget, bigVendor: bigVendor && budget >= 2_000_000, fonts: fonts,
                    fontAllowance: fontTarget - Double(fontWritten), sink: &sink)
            }
        }
        var byKind: [String: Int] = [:]
        for kind in Kind.allCases { byKind[kind.key] = sink.bytesByKind[kind.rawValue] }
        return CorpusSummary(
            root: root, fileCount: sink.fileCount, totalBytes: sink.total, bytesByKind: byKind)
    }
}
