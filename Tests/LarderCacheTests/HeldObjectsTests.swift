import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderCache

/// `heldObjects(among:)`, what a fetch asks once about every patch base it could use: the
/// same answer as `holdsObject(_:)` for each digest (used by a bundle, not quarantined).
@Suite struct HeldObjectsTests {
    @Test func theCacheSaysWhichItHoldsAsHoldsObjectDoes() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archiveA, manifestA) = try bundle("a", ["font.ttf": "SHARED", "a.css": "only-a"])
        let (archiveB, manifestB) = try bundle("b", ["font.ttf": "SHARED", "b.css": "b", "b.js": "damaged later"])
        _ = try cache.install(archiveAt: try fixture.file(archiveA))
        _ = try cache.install(archiveAt: try fixture.file(archiveB))
        func digest(_ manifest: Manifest, _ path: String) throws -> Digest { try #require(manifest.files.first { $0.path == path }).digest }
        let (font, css, script) = (try digest(manifestA, "font.ttf"), try digest(manifestA, "a.css"), try digest(manifestB, "b.js"))
        let unknown = SHA256Hasher.hash(Array("never installed".utf8))

        try flipFirstByte(at: CacheLayout(root: fixture.root).objectPath(script))
        #expect(try cache.verify(repair: true).corrupt == [script])

        let asked: Set = [font, css, script, unknown]
        #expect(try cache.heldObjects(among: asked) == [font, css])
        for object in asked { #expect(try cache.holdsObject(object) == [font, css].contains(object), "\(object)") }
        #expect(try cache.heldObjects(among: []).isEmpty)
        // Many at once (one query): every object of both bundles, and as many unknown ones.
        let all = Set(manifestA.files.map(\.digest) + manifestB.files.map(\.digest))
        let strangers = Set((0..<600).map { SHA256Hasher.hash(Array("stranger \($0)".utf8)) })
        #expect(try cache.heldObjects(among: all.union(strangers)) == all.subtracting([script]))
    }
}
