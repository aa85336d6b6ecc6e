import Foundation
import LarderCache
import LarderFormat
import LarderPack
import LarderTestSupport
import Testing

/// Something planted in place of an object (a FIFO, a folder, a symbolic link to a 3 GB sparse
/// file, a device, an empty file) never hangs a command or fills its memory: `cache resolve`,
/// `cache verify`, `cache verify --repair` and `journey prepare --offline` end in time, each
/// under a watchdog, with a typed error naming the object; installs write the object anew.
@Suite struct PlantedObjectCLITests {
    static let kinds: [PlantedFile] = [.fifo, .folder, .symlinkToSparseFile, .device, .empty]

    /// What no command may exceed here: a read of the 3 GB file would pass both.
    static let seconds = 30.0
    static let memory: Int64 = 200 << 20

    struct Setup {
        let work: Workspace
        let report: PackReport
        let cache: String
        let font: Manifest.File

        init() async throws {
            work = try Workspace()
            report = try work.pack(sampleBundles + "/paywall")
            cache = work.path + "/cache"
            let install = try await LarderProcess.run(["cache", "install", report.archivePath, "--cache", cache])
            #expect(install.status == 0, "\(install)")
            let manifest = try LarderCache(at: cache, configuration: .init(mode: .readOnly)).manifest(report.bundleDigest)
            font = manifest.files.first { $0.path == "fonts/Lato-Regular.latin.woff2" }!
        }

        var objectPath: String { cache + "/objects/" + font.digest.hex.prefix(2) + "/" + font.digest.hex.dropFirst(2) }
        var journey: [String] {
            ["journey", "prepare", "--offline", "--embedded", report.archivePath, "--origin", "http://127.0.0.1:9/", "--key", "pk_sample",
             "--journey", "paywall", "--cache", cache]
        }

        func plant(_ planted: PlantedFile) throws -> Bool {
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: work.path + "/font-copy")))
            return try planted.plant(at: objectPath, object: bytes, scratch: work.path)
        }

        /// Keeps the font's bytes outside the cache, for the planted files made from them.
        func keepCopy() throws {
            try FileManager.default.copyItem(atPath: objectPath, toPath: work.path + "/font-copy")
        }
    }

    /// Runs `arguments` and checks it ended by itself, in time and in bounded memory.
    func run(_ arguments: [String], _ note: String) async throws -> ProcessOutcome {
        let outcome = try await LarderProcess.run(arguments, watchdog: .seconds(Int64(Self.seconds * 2)))
        #expect(!outcome.killed, "\(note): \(outcome)")
        #expect(outcome.elapsed < Self.seconds, "\(note): \(outcome)")
        #expect(outcome.peakMemory < Self.memory, "\(note): \(outcome)")
        return outcome
    }

    @Test(arguments: kinds)
    func everyCommandEndsInTimeNamingTheObject(_ planted: PlantedFile) async throws {
        let setup = try await Setup()
        try setup.keepCopy()
        guard try setup.plant(planted) else { return }  // a device needs root
        let damage = planted.damage(size: Int(setup.font.size))
        let url = FontURL.prefix + setup.font.digest.hex

        let resolve = try await run(["cache", "resolve", url, "--cache", setup.cache], "\(planted): resolve")
        #expect(resolve.status == 65, "\(resolve)")
        #expect(resolve.stderr.contains("failed verification (\(damage))"), "\(resolve)")
        #expect(resolve.stderr.contains("[\(setup.font.digest)]"), "\(resolve)")

        let verify = try await run(["cache", "verify", "--cache", setup.cache], "\(planted): verify")
        #expect(verify.status == 65, "\(verify)")
        #expect(verify.stderr.contains("corrupt: \(setup.font.digest): \(damage)\n"), "\(verify)")

        let repair = try await run(["cache", "verify", "--repair", "--cache", setup.cache], "\(planted): verify --repair")
        #expect(repair.status == 65, "\(repair)")
        #expect(repair.stderr.contains("corrupt: \(setup.font.digest): \(damage) (quarantined)\n"), "\(repair)")
        #expect(repair.stderr.contains("incomplete: \(setup.report.bundleDigest)\n"), "\(repair)")
        #expect(FileManager.default.fileExists(atPath: setup.cache + "/quarantine/" + setup.font.digest.hex))

        // Planted again under the incomplete bundle: importing the embedded default checks what
        // it finds in place, quarantines it and writes the font anew.
        guard try setup.plant(planted) else { return }
        let healed = try await run(setup.journey, "\(planted): journey prepare over an incomplete bundle")
        #expect(healed.status == 0, "\(healed)")

        // Planted under the complete bundle: the renderer's read quarantines it and names it.
        guard try setup.plant(planted) else { return }
        let prepare = try await run(setup.journey, "\(planted): journey prepare")
        #expect(prepare.status != 0, "\(prepare)")
        #expect(prepare.stderr.contains("fonts/Lato-Regular.latin.woff2"), "\(prepare)")
        #expect(prepare.stderr.contains("failed verification (\(damage))"), "\(prepare)")
        let after = try await run(["cache", "ls", "--cache", setup.cache, "--json"], "\(planted): ls")
        #expect(after.stdout.contains(#""complete":false"#), "\(after)")
    }

    /// The issue's case: an empty file planted where an object will go made the install succeed
    /// and verify fail. The install now writes the object anew.
    @Test func anEmptyFilePlantedBeforeTheInstallIsReplaced() async throws {
        let setup = try await Setup()
        try setup.keepCopy()
        let fresh = setup.work.path + "/fresh"
        // gc lays the empty cache out in a folder that is there (it never creates the folder).
        try FileManager.default.createDirectory(atPath: fresh, withIntermediateDirectories: false)
        let gc = try await run(["cache", "gc", "--cache", fresh], "gc")
        #expect(gc.status == 0, "\(gc)")
        let planted = fresh + "/objects/" + setup.font.digest.hex.prefix(2) + "/" + setup.font.digest.hex.dropFirst(2)
        #expect(FileManager.default.createFile(atPath: planted, contents: Data()))
        let install = try await run(["cache", "install", setup.report.archivePath, "--cache", fresh], "install")
        #expect(install.status == 0, "\(install)")
        let verify = try await run(["cache", "verify", "--cache", fresh], "verify")
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.stdout.hasPrefix("OK: "), "\(verify)")
        let stats = try await run(["cache", "stats", "--cache", fresh, "--json"], "stats")
        #expect(stats.stdout.contains(#""integrityFailures":1"#), "\(stats)")
    }
}
