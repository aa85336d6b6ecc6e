import Foundation
import LarderFormat
import LarderSystem
import LarderTestSupport
import Testing

@testable import LarderPack

/// ``PackOptions/progress``: the source bytes archived, rising to the total, and the same
/// archive as without it.
@Suite struct PackProgressTests {
    @Test func reportsBytesUpToTheTotalAndPacksTheSameArchive() throws {
        // Random letters: a megabyte, in several reads, that compresses too little to be refused.
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let big = String((0..<1_000_000).map { _ in letters.randomElement()! })
        let folder = try SourceFolder([
            "index.html": #"<link rel="stylesheet" href="app.css"><img src="a.png">"#,
            "app.css": "body { background: url(a.png) }", "a.png": big,
        ])
        let reports = Locked<[PackProgress]>([])
        var options = PackOptions()
        options.progress = { progress in reports.withLock { $0.append(progress) } }
        let watched = try Packer.pack(source: folder.root, into: folder.output + "/watched", options: options)
        let plain = try Packer.pack(source: folder.root, into: folder.output + "/plain")
        #expect(watched.archiveDigest == plain.archiveDigest)
        let seen = reports.withLock { $0 }
        #expect(seen.count > 4, "\(seen.count) reports")
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytes < $1.bytes && $0.totalBytes == $1.totalBytes })
        #expect(seen.last?.bytes == seen.last?.totalBytes)
        #expect(seen.last?.totalBytes == watched.totalSize)
    }
}
