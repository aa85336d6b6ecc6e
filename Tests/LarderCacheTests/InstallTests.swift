import Dispatch
import Foundation
import LarderFormat
import LarderSystem
import Testing
@testable import LarderCache

@Suite struct InstallTests {
    @Test func installsAndServesVerifiedBytes() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("onboarding", ["css/app.css": "body{}", "fonts/a.ttf": "FONT"])
        let result = try cache.install(archiveAt: try fixture.file(archive), expected: manifest.bundleDigest)
        #expect(result.bundle == manifest.bundleDigest)
        #expect(!result.alreadyPresent)
        #expect(result.objectsWritten == 3)
        let lease = try cache.lease(result.bundle)
        #expect(try lease.data(at: "css/app.css") == Array("body{}".utf8))
        let location = try lease.fileLocation(at: "fonts/a.ttf")
        #expect(FileManager.default.contents(atPath: location) == Data("FONT".utf8))
        #expect { try lease.data(at: "missing.css") } throws: { ($0 as? CacheError)?.code == .resourceNotFound }
        #expect(try cache.bundles().map(\.name) == ["onboarding"])
        #expect(fixture.fileList.filter { $0.hasPrefix("staging/") }.isEmpty)
    }

    @Test func installingAgainIsANoOp() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, _) = try bundle("x", ["a.css": "a"])
        let path = try fixture.file(archive)
        _ = try cache.install(archiveAt: path)
        let files = fixture.fileList
        let again = try cache.install(archiveAt: path)
        #expect(again.alreadyPresent)
        #expect(again.objectsWritten == 0)
        #expect(fixture.fileList == files)
    }

    @Test func installsFromAStream() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("streamed", ["a.js": "let a = 1"])
        let source = MemorySourceBox(archive)
        let result = try cache.install(expected: manifest.bundleDigest) { (buffer) throws(FormatError) in source.read(into: buffer) }
        #expect(result.bundle == manifest.bundleDigest)
        #expect(try cache.lease(result.bundle).data(at: "a.js") == Array("let a = 1".utf8))
    }

    @Test func refusesABundleFetchedForAnotherDigest() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, _) = try bundle("x", ["a.css": "a"])
        let other = SHA256Hasher.hash(Array("other".utf8))
        #expect { _ = try cache.install(archiveAt: try fixture.file(archive), expected: other) } throws: {
            ($0 as? CacheError)?.code == .bundleDigestMismatch
        }
        #expect(try cache.bundles().isEmpty)
    }

    @Test func sharesObjectsBetweenBundles() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let shared = String(decoding: noise(10_000, seed: 1).map { $0 % 26 + 97 }, as: UTF8.self)
        let first = try cache.install(archiveAt: try fixture.file(try bundle("one", ["fonts/lato.ttf": shared, "a.css": "1"]).archive))
        let second = try cache.install(archiveAt: try fixture.file(try bundle("two", ["fonts/lato.ttf": shared, "b.css": "2"]).archive))
        #expect(first.objectsWritten == 3)
        #expect(second.objectsWritten == 2)  // index.html differs, the font does not
        #expect(try cache.statistics().objects == 5)
    }

    @Test func concurrentInstallsOfOneBundleShareTheWork() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("busy", ["big.png": String(repeating: "x", count: 200_000)])
        let path = try fixture.file(archive)
        let results = Locked<[InstallResult]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do {
                let result = try cache.install(archiveAt: path)
                results.withLock { $0.append(result) }
            } catch {
                Issue.record("install failed: \(error)")
            }
        }
        let all = results.withLock { $0 }
        #expect(all.count == 8)
        #expect(all.allSatisfy { $0.bundle == manifest.bundleDigest })
        #expect(all.filter { !$0.alreadyPresent }.count == 1)
        #expect(all.map(\.objectsWritten).reduce(0, +) == 2)
    }

    @Test func reopeningRemovesLeftoverStaging() throws {
        let fixture = try CacheFixture()
        _ = try fixture.open()
        // What a killed install leaves: an unlocked staging folder with a partial object.
        try FileManager.default.createDirectory(atPath: fixture.root + "/staging/install-dead", withIntermediateDirectories: true)
        try Data("partial".utf8).write(to: URL(fileURLWithPath: fixture.root + "/staging/install-dead/1"))
        _ = try fixture.open()
        #expect(fixture.fileList.filter { $0.hasPrefix("staging/") }.isEmpty)
    }
}

final class MemorySourceBox: @unchecked Sendable {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, bytes.count - offset, 1000)  // small reads, like a network stream
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
        offset += count
        return count
    }
}
