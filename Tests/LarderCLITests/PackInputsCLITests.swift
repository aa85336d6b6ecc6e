import Foundation
import LarderTestSupport
import Testing

/// What `larder pack` does with inputs at the edges: bundles past the readers' limits, an
/// output folder inside the source, an output path under a file, a malformed `larder.json`.
@Suite struct PackInputsCLITests {
    /// 15,000 files with 1,000-byte paths make a manifest of about 17 MB. Pack wrote it, and
    /// `inspect`, `verify`, `diff`, `cache install` and `publish` all refused it (65): readers
    /// take at most 16 MiB. Now pack refuses first, and writes nothing.
    @Test func aManifestNoReaderAcceptsIsNotPacked() throws {
        let scratch = try Scratch()
        let source = scratch.path + "/src"
        let folder = source + "/" + [String](repeating: String(repeating: "d", count: 250), count: 3).joined(separator: "/")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("<p>".utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        try Data(#"{"include": ["d*/"]}"#.utf8).write(to: URL(fileURLWithPath: source + "/larder.json"))
        let stem = String(repeating: "f", count: 240)
        for index in 0..<15_000 {
            #expect(FileManager.default.createFile(atPath: folder + "/\(stem)\(index)", contents: nil))
        }
        let result = try CLI.run(["pack", source, "-o", scratch.path + "/out"])
        #expect(result.status == 65, "\(result.stdout)")
        #expect(result.stderr.hasPrefix("Error: the manifest would have 1"), "\(result.stderr)")
        #expect(result.stderr.contains("bytes and readers accept at most 16777216 (16 MiB)"), "\(result.stderr)")
        let written = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/out")) ?? []
        #expect(written.isEmpty)
    }

    @Test func anArchiveReadersTakeForAGzipBombIsNotPacked() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path + "/src", withIntermediateDirectories: true)
        try Data("<p>".utf8).write(to: URL(fileURLWithPath: scratch.path + "/src/index.html"))
        try Data(count: 10_000_000).write(to: URL(fileURLWithPath: scratch.path + "/src/zeros.bin"))
        let result = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/out"])
        #expect(result.status == 65, "\(result.stdout)")
        #expect(result.stderr.hasPrefix("Error: zeros.bin: the archive would compress "), "\(result.stderr)")
        #expect(result.stderr.contains("past the 200:1 ratio readers accept (they refuse such archives as gzip bombs): compress this file yourself"), "\(result.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/out")) ?? []).isEmpty)
    }
}

extension PackInputsCLITests {
    /// Three runs into `src/out` gave three digests: each packed the archives of the runs
    /// before.
    @Test func anOutputFolderInsideTheSourceIsNeverPacked() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path + "/src", withIntermediateDirectories: true)
        try Data("<p>".utf8).write(to: URL(fileURLWithPath: scratch.path + "/src/index.html"))
        var outputs: Set<String> = []
        for _ in 0..<3 {
            let result = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/src/out"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            outputs.insert(result.stdout)
        }
        #expect(outputs.count == 1)
        let same = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/src/"])
        #expect(same.status == 73)
        #expect(same.stderr.contains("the output folder is the source folder"), "\(same.stderr)")
    }
}
