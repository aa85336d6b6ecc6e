import Foundation
import LarderTestSupport
import Testing

/// `larder pack` writes gzip members that carry their size in an extra field; stock tools
/// skip the field and read the archive as any other .tar.gz, and `larder` reads it back.
@Suite struct StockToolsCLITests {
    @Test func stockToolsReadAnArchiveOfManySizedMembers() throws {
        let scratch = try Scratch()
        let source = scratch.path + "/site"
        try FileManager.default.createDirectory(atPath: source + "/img", withIntermediateDirectories: true)
        try Data("<!doctype html><script src=\"app.js\"></script><img src=\"img/photo.jpg\">".utf8)
            .write(to: URL(fileURLWithPath: source + "/index.html"))
        // Numbered lines (about 15:1 with gzip): one line repeated 60,000 times compresses past
        // the 200:1 readers take for a gzip bomb, which pack refuses (limit-exceeded).
        let script = (0..<60_000).map { "function double\($0)(a) { return a * \($0 % 97) } // Larder\n" }.joined()
        try Data(script.utf8).write(to: URL(fileURLWithPath: source + "/app.js"))
        var state: UInt64 = 11
        let photo = (0..<1_500_000).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        try Data(photo).write(to: URL(fileURLWithPath: source + "/img/photo.jpg"))

        let pack = try CLI.run(["pack", source, "-o", scratch.path + "/out", "--json"])
        #expect(pack.status == 0, "\(pack.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any])
        let archive = try #require(report["archivePath"] as? String)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive)))
        let members = sizedGzipMembers(bytes)
        #expect(members.count >= 4, "\(members.count) members")
        #expect(members.last?.upperBound == bytes.count, "the size fields tile the whole archive")

        try CLI.shell("gzip -t '\(archive)'")
        let listing = String(decoding: try CLI.shell("gzip -dc '\(archive)' | tar -tf -"), as: UTF8.self)
        #expect(listing == "manifest.json\napp.js\nimg/\nimg/photo.jpg\nindex.html\n")
        try CLI.shell("""
            mkdir '\(scratch.path)/x' && tar -xzf '\(archive)' -C '\(scratch.path)/x' && \
            cmp '\(scratch.path)/x/app.js' '\(source)/app.js' && cmp '\(scratch.path)/x/img/photo.jpg' '\(source)/img/photo.jpg'
            """)

        let verify = try CLI.run(["verify", archive])
        #expect(verify.status == 0, "\(verify.stderr)")
        let install = try CLI.run(["cache", "install", archive, "--cache", scratch.path + "/cache"])
        #expect(install.status == 0, "\(install.stderr)")
    }
}
