import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderCache

/// Whatever is planted where an object file belongs (a FIFO, a folder, a symbolic link, a file
/// of another size, a device, other bytes of the right size) is refused before a byte of it is
/// read and quarantined like a digest mismatch: the caller gets ``CacheError/Code/corruptObject``
/// naming the digest and the bundles to refetch, no call hangs (each runs under a watchdog),
/// and the rest of the folder stays byte for byte as it was.
@Suite struct PlantedObjectTests {
    /// Every way a planted object is met by a reader of a read-write cache.
    enum Reader: String, CaseIterable, Sendable {
        case leaseData, fileLocation, resolveFont, verifyRepair
    }

    /// The planted kinds, the other bytes of the right size among them.
    enum Kind: Sendable, CustomStringConvertible {
        case planted(PlantedFile)
        case otherBytesOfTheRightSize

        static let all: [Kind] = PlantedFile.allCases.map(Kind.planted) + [.otherBytesOfTheRightSize]

        var description: String {
            switch self {
            case .planted(let file): file.rawValue
            case .otherBytesOfTheRightSize: "otherBytesOfTheRightSize"
            }
        }

        /// Replaces the object at `path`; false when this process may not (a device without root).
        func plant(at path: String, object: [UInt8], scratch: String) throws -> Bool {
            switch self {
            case .planted(let file): return try file.plant(at: path, object: object, scratch: scratch)
            case .otherBytesOfTheRightSize:
                var other = object
                other[0] ^= 0x01
                if unlink(path) != 0 && errno != ENOENT { throw PlantError("cannot remove \(path)") }
                try Data(other).write(to: URL(fileURLWithPath: path))
                return true
            }
        }

        func damage(size: Int) -> String {
            switch self {
            case .planted(let file): file.damage(size: size)
            case .otherBytesOfTheRightSize: "its bytes do not match its digest"
            }
        }
    }

    static let font = noise(40_000, seed: 11)
    static let fontPath = "fonts/f.woff2"
    static let object = SHA256Hasher.hash(font)

    /// A cache holding one bundle with a font, and a scratch folder outside it.
    struct Setup {
        let fixture: CacheFixture
        let cache: LarderCache
        let archive: [UInt8]
        let manifest: Manifest
        let bundle: Digest
        let scratch: String
        var objectPath: String { CacheLayout(root: fixture.root).objectPath(PlantedObjectTests.object) }
        var quarantinePath: String { "quarantine/" + PlantedObjectTests.object.hex }
        var objectEntry: String { String(objectPath.dropFirst(fixture.root.count + 1)) }

        init(installing: Bool = true) throws {
            fixture = try CacheFixture()
            cache = try fixture.open()
            (archive, manifest) = try makeBundleArchive(
                files: ["index.html": Array("<p>planted</p>".utf8), PlantedObjectTests.fontPath: PlantedObjectTests.font, "a.css": Array("p{}".utf8)],
                name: "planted")
            bundle = SHA256Hasher.hash(manifest.canonicalBytes)
            if installing { _ = try cache.install(archiveAt: try fixture.file(archive), expected: bundle) }
            scratch = fixture.root + "-archives"
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        }

        /// The snapshot expected once the object's entries moved to quarantine.
        func quarantined(_ before: [String: String]) -> [String: String] {
            var expected: [String: String] = [:]
            for (path, what) in before {
                expected[path.hasPrefix(objectEntry) ? quarantinePath + path.dropFirst(objectEntry.count) : path] = what
            }
            return expected
        }
    }

    @Test(arguments: Kind.all, Reader.allCases)
    func eachReaderQuarantinesWhatIsPlanted(_ kind: Kind, _ reader: Reader) throws {
        let setup = try Setup()
        guard try kind.plant(at: setup.objectPath, object: Self.font, scratch: setup.scratch) else { return }  // a device needs root
        let before = setup.fixture.snapshot
        let cache = setup.cache
        let bundle = setup.bundle
        let damage = kind.damage(size: Self.font.count)

        if reader == .verifyRepair {
            let result = try withWatchdog { try cache.verify(repair: true) }
            #expect(result.corrupt == [Self.object], "\(kind)")
            #expect(result.damage[Self.object] == damage, "\(kind)")
            #expect(result.bundlesToRefetch == [bundle])
            #expect(result.incomplete == [bundle])
        } else {
            do {
                _ = try withWatchdog { () throws -> Int in
                    switch reader {
                    case .leaseData: return try cache.lease(bundle).data(at: Self.fontPath).count
                    case .fileLocation: return try cache.lease(bundle).fileLocation(at: Self.fontPath).count
                    case .resolveFont: return try cache.resolveFont(FontURL(digest: Self.object)).bytes.count
                    case .verifyRepair: return 0
                    }
                }
                Issue.record("\(kind) via \(reader): read")
            } catch let error as CacheError {
                #expect(error.code == .corruptObject, "\(kind) via \(reader): \(error)")
                #expect(error.digest == Self.object)
                #expect(error.bundles == [bundle])
                #expect(error.message.contains(damage), "\(kind) via \(reader): \(error)")
            }
        }
        // Quarantined, and nothing else changed: the planted thing (and a link's target) kept.
        #expect(setup.fixture.snapshot == setup.quarantined(before), "\(kind) via \(reader)")
        #expect(try cache.bundle(bundle)?.complete == false)
        #expect(try cache.statistics().integrityFailures == 1)
        #expect(try cache.verify().incomplete == [bundle])
        if case .planted(.symlinkToSparseFile) = kind {
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: setup.fixture.root + "/" + setup.quarantinePath)
            #expect(try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int == 3 << 30)
        }

        // Refetching makes it whole.
        _ = try cache.install(archiveAt: try setup.fixture.file(setup.archive))
        #expect(try cache.lease(bundle).data(at: Self.fontPath) == Self.font)
        #expect(try cache.verify().isClean)
    }

    @Test(arguments: Kind.all)
    func verifyWithoutRepairReportsWhatIsPlantedAndChangesNothing(_ kind: Kind) throws {
        let setup = try Setup()
        guard try kind.plant(at: setup.objectPath, object: Self.font, scratch: setup.scratch) else { return }
        let files = setup.fixture.snapshot
        let rows = try setup.fixture.indexDump(setup.cache)
        let cache = setup.cache
        let result = try withWatchdog { try cache.verify() }
        #expect(result.corrupt == [Self.object], "\(kind)")
        #expect(result.damage[Self.object] == kind.damage(size: Self.font.count))
        #expect(result.bundlesToRefetch == [setup.bundle])
        #expect(result.incomplete.isEmpty)
        #expect(setup.fixture.snapshot == files, "\(kind)")
        #expect(try setup.fixture.indexDump(cache) == rows, "\(kind)")
    }

    @Test(arguments: Kind.all)
    func aReadOnlyCacheReportsWhatIsPlantedAndMovesNothing(_ kind: Kind) throws {
        let setup = try Setup()
        guard try kind.plant(at: setup.objectPath, object: Self.font, scratch: setup.scratch) else { return }
        let files = setup.fixture.snapshot
        let rows = try setup.fixture.indexDump(setup.cache)
        let readOnly = try LarderCache(at: setup.fixture.root, configuration: .init(mode: .readOnly))
        #expect {
            _ = try withWatchdog { try readOnly.resolveFont(FontURL(digest: Self.object)) }
        } throws: { error in
            guard let error = error as? CacheError else { return false }
            return error.code == .corruptObject && error.digest == Self.object && error.bundles == [setup.bundle]
                && error.message.contains(kind.damage(size: Self.font.count)) && error.message.contains("read-only")
        }
        #expect(try withWatchdog { try readOnly.verify() }.corrupt == [Self.object])
        #expect(setup.fixture.snapshot == files, "\(kind)")
        #expect(try setup.fixture.indexDump(setup.cache) == rows, "\(kind)")
    }

    /// An install checks an object file it finds in place before reusing it: in an empty cache
    /// (planted before anything was installed) and under a bundle that already uses it.
    @Test(arguments: Kind.all)
    func anInstallQuarantinesWhatIsPlantedAndWritesTheObjectAnew(_ kind: Kind) throws {
        let setup = try Setup(installing: false)
        guard try kind.plant(at: setup.objectPath, object: Self.font, scratch: setup.scratch) else { return }
        let before = setup.fixture.snapshot
        let cache = setup.cache
        let path = try setup.fixture.file(setup.archive)
        let result = try withWatchdog { try cache.install(archiveAt: path) }
        #expect(result.objectsWritten == 3, "\(kind)")
        #expect(setup.fixture.snapshot.filter { $0.key.hasPrefix("quarantine/") } == setup.quarantined(before).filter { $0.key.hasPrefix("quarantine/") })
        #expect(try cache.lease(setup.bundle).data(at: Self.fontPath) == Self.font)
        #expect(try cache.verify().isClean, "\(kind)")
        #expect(try cache.statistics().integrityFailures == 1)
        #expect(try cache.statistics().objects == 3)

        // Planted under an installed bundle, found by the install of another that shares it, in
        // another process (one that verified the object already checks only its kind and size).
        guard try kind.plant(at: setup.objectPath, object: Self.font, scratch: setup.scratch) else { return }
        let later = try setup.fixture.open()
        let (other, _) = try makeBundleArchive(files: ["index.html": Array("<p>other</p>".utf8), Self.fontPath: Self.font], name: "other")
        let otherPath = try setup.fixture.file(other)
        let second = try withWatchdog { try later.install(archiveAt: otherPath) }
        #expect(second.objectsWritten == 2, "\(kind)")
        #expect(try later.lease(second.bundle).data(at: Self.fontPath) == Self.font)
        let verification = try later.verify()
        #expect(verification.corrupt.isEmpty)
        #expect(verification.incomplete == [setup.bundle], "the bundle whose object was damaged is to refetch")
        try AccountingTests.expectExact(later, "after installs over \(kind)")
    }

    /// The objects path asks the cache what it lacks: a planted object counts as missing (and is
    /// quarantined), so it is downloaded again.
    @Test(arguments: Kind.all)
    func aPlantedObjectIsMissingForTheFetch(_ kind: Kind) throws {
        let setup = try Setup()
        guard try kind.plant(at: setup.objectPath, object: Self.font, scratch: setup.scratch) else { return }
        let cache = setup.cache
        let manifest = setup.manifest
        #expect(try withWatchdog { try cache.missingObjects(of: manifest) } == [Self.object], "\(kind)")
        #expect(try cache.bundle(setup.bundle)?.complete == false)
        let copy = setup.scratch + "/font-\(UUID().uuidString)"
        try Data(Self.font).write(to: URL(fileURLWithPath: copy))
        _ = try cache.install(VerifiedManifest(manifest), objectFiles: [Self.object: copy])
        #expect(try cache.lease(setup.bundle).data(at: Self.fontPath) == Self.font)
        #expect(try cache.verify().isClean)
    }
}
