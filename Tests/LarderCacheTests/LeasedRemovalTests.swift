import Foundation
import LarderFormat
import LarderSystem
import LarderTestSupport
import Testing
@testable import LarderCache

/// Issue 21, item 1: no removal deletes a bundle a live process leases. A removal that picks a
/// leased bundle leaves it whole (its row, files and objects) and readable through the lease,
/// files never read before included; the bundle goes when the last lease ends, or at the next
/// sweep after its holder died. Each way out of the cache, with the lease held in this process
/// and in another one.
@Suite struct LeasedRemovalTests {
    /// The ways a bundle leaves the cache.
    enum Removal: String, Codable, Sendable, CaseIterable, CustomTestStringConvertible {
        /// Its scope keeps another bundle instead (a refresh took a new revision).
        case scopeChange
        /// The last other scope keeping it lets it go (the logout of another journey or person).
        case logoutOfAnotherScope
        /// Every bundle but the embedded default goes (`clearAll`).
        case clearAll
        /// Eviction down to nothing.
        case eviction
        /// An install over the disk budget, by another handle on the cache in this process.
        case installOverBudget
        /// A sweep (`larder cache gc`) after its scope dropped it.
        case gc
        /// Everything goes, the embedded default too (`larder cache purge`).
        case purge

        var testDescription: String { rawValue }

        /// Whether the bundle was asked to go, so goes when unleased; eviction only skips a
        /// leased bundle, which stays evictable.
        var removesOnRelease: Bool { self != .eviction && self != .installOverBudget }
    }

    /// The leased bundle: two screens, an image and a font it shares with `next`.
    static let shownFiles = [
        "index.html": "<!doctype html><title>one</title><a href=screen-2.html>next</a>",
        "screen-2.html": "<!doctype html><title>two</title><img src=images/list.svg>",
        "images/list.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
        "fonts/shared.ttf": String(repeating: "F", count: 3000),
    ]
    static let nextFiles = [
        "index.html": "<!doctype html><title>next revision</title>",
        "fonts/shared.ttf": String(repeating: "F", count: 3000),
    ]

    struct Shelf {
        var shown: Digest
        var next: Digest
        /// Objects only `shown` uses.
        var unique: [Digest]
        /// A third bundle's archive, for the install over budget.
        var third: String
    }

    /// Installs both bundles; scope `journey-a` keeps `shown` (and `journey-b` too, for the
    /// logout of another scope).
    static func stock(_ fixture: CacheFixture, _ cache: LarderCache, for removal: Removal) throws -> Shelf {
        let shown = try cache.install(archiveAt: try fixture.file(try bundle("shown", shownFiles).archive)).bundle
        fixture.tick()
        let next = try cache.install(archiveAt: try fixture.file(try bundle("next", nextFiles).archive)).bundle
        fixture.tick()
        _ = try cache.retain(scope: "journey-a", keeping: [shown])
        if removal == .logoutOfAnotherScope { _ = try cache.retain(scope: "journey-b", keeping: [shown]) }
        let unique = ["index.html", "screen-2.html", "images/list.svg"].map { SHA256Hasher.hash(Array(shownFiles[$0]!.utf8)) }
        return Shelf(shown: shown, next: next, unique: unique, third: try fixture.file(try bundle("third", ["a.css": "third"]).archive))
    }

    /// Takes the way out of the cache for `shelf.shown`, through `cache` (in this process or
    /// another one).
    static func remove(_ removal: Removal, _ shelf: Shelf, root: String, _ cache: LarderCache) throws {
        switch removal {
        case .scopeChange:
            _ = try cache.retain(scope: "journey-a", keeping: [shelf.next])
        case .logoutOfAnotherScope:
            _ = try cache.retain(scope: "journey-a", keeping: [shelf.next])
            _ = try cache.retain(scope: "journey-b", keeping: [])
        case .clearAll:
            try cache.clearAll()
        case .eviction:
            _ = try cache.evict(toBytes: 0)
        case .installOverBudget:
            let tight = try LarderCache(at: root, configuration: .init(diskBudget: 1))
            _ = try tight.install(archiveAt: shelf.third)
        case .gc:
            _ = try cache.retain(scope: "journey-a", keeping: [shelf.next])
            var report: SweepReport?
            for _ in 0..<200 where report == nil {
                report = try cache.sweep()
                if report == nil { usleep(10_000) }  // see ``CacheFixture/sweepWhenFree(_:dryRun:)``
            }
            #expect(report != nil)
        case .purge:
            #expect(try cache.purge().waiting == [shelf.shown])
            #expect(try cache.bundles().map(\.digest) == [shelf.shown], "a purge keeps only the leased bundle")
        }
    }

    /// The path of an object's file.
    static func objectFile(_ object: Digest, root: String) -> String {
        root + "/objects/" + object.hex.prefix(2) + "/" + object.hex.dropFirst(2)
    }

    /// The bundle is whole: its row, every object file, a clean verify.
    static func expectWhole(_ shelf: Shelf, root: String, _ cache: LarderCache, _ comment: Comment) throws {
        #expect(try cache.bundle(shelf.shown) != nil, comment)
        for object in shelf.unique { #expect(FileManager.default.fileExists(atPath: objectFile(object, root: root)), comment) }
        #expect(try cache.verify().isClean, comment)
    }

    /// Every file of the bundle, read through `lease`, has its bytes.
    static func readEverything(_ lease: BundleLease) throws {
        for (path, text) in shownFiles { #expect(try lease.data(at: path) == Array(text.utf8), "\(path)") }
    }

    /// While `lease` is held after `removal` the bundle is whole and every file reads; once it
    /// ends, a removal that was asked for is done, and the bundle is evictable otherwise.
    static func expectKeptUntilReleased(
        _ lease: BundleLease, after removal: Removal, _ shelf: Shelf, root: String, _ cache: LarderCache
    ) async throws {
        try expectWhole(shelf, root: root, cache, "after \(removal) with the lease held")
        try readEverything(lease)
        lease.release()
        if removal.removesOnRelease {
            #expect(try await eventually(within: .seconds(10)) { try cache.bundle(shelf.shown) == nil })
            for object in shelf.unique { #expect(!FileManager.default.fileExists(atPath: objectFile(object, root: root))) }
        } else {
            #expect(try cache.evict(toBytes: 0).evicted.contains(shelf.shown))
        }
        #expect(try cache.verify().isClean)
    }

    @Test(arguments: Removal.allCases)
    func aLeaseInThisProcessKeepsTheBundleUntilItEnds(_ removal: Removal) async throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let shelf = try Self.stock(fixture, cache, for: removal)
        let lease = try cache.lease(shelf.shown)

        try Self.remove(removal, shelf, root: fixture.root, cache)

        try await Self.expectKeptUntilReleased(lease, after: removal, shelf, root: fixture.root, cache)
    }

    /// The removal runs in another process (a child, to the end) while this one holds the lease.
    @Test(arguments: Removal.allCases)
    func aLeaseHeldWhileAnotherProcessRemovesKeepsTheBundleUntilItEnds(_ removal: Removal) async throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let shelf = try Self.stock(fixture, cache, for: removal)
        let lease = try cache.lease(shelf.shown)

        let (root, way, shown, next, third) = (fixture.root, removal.rawValue, shelf.shown.description, shelf.next.description, shelf.third)
        await #expect(processExitsWith: .success) { [root = root as String, way = way as String, shown = shown as String, next = next as String, third = third as String] in
            let shelf = Shelf(shown: try Digest(parsing: shown), next: try Digest(parsing: next), unique: [], third: third)
            let cache = try LarderCache(at: root)
            try LeasedRemovalTests.remove(try #require(Removal(rawValue: way)), shelf, root: root, cache)
            #expect(try cache.bundle(shelf.shown) != nil, "the other process removed a bundle this one leases")
        }

        try await Self.expectKeptUntilReleased(lease, after: removal, shelf, root: fixture.root, cache)
    }

    /// A process leases the bundle, its scope drops it, and the process dies holding the lease:
    /// nobody ends it, so the bundle waits for the next sweep, which sees the holder is gone.
    @Test func aDeadHoldersLeaseIsSweptWithTheBundleItKept() async throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let shelf = try Self.stock(fixture, cache, for: .scopeChange)

        let (root, shown, next, third) = (fixture.root, shelf.shown.description, shelf.next.description, shelf.third)
        await #expect(processExitsWith: .signal(SIGKILL)) { [root = root as String, shown = shown as String, next = next as String, third = third as String] in
            let shelf = Shelf(shown: try Digest(parsing: shown), next: try Digest(parsing: next), unique: [], third: third)
            let cache = try LarderCache(at: root)
            let lease = try cache.lease(shelf.shown)
            try LeasedRemovalTests.remove(.scopeChange, shelf, root: root, cache)
            guard try cache.bundle(shelf.shown) != nil else { exit(4) }
            withExtendedLifetime(lease) { _ = kill(getpid(), SIGKILL) }
        }

        try Self.expectWhole(shelf, root: fixture.root, cache, "after the holder died, before a sweep")
        #expect(try fixture.sweepWhenFree(cache) != nil)
        #expect(try cache.bundle(shelf.shown) == nil)
        for object in shelf.unique { #expect(!FileManager.default.fileExists(atPath: Self.objectFile(object, root: fixture.root))) }
        #expect(try cache.bundle(shelf.next) != nil)
        #expect(try cache.verify().isClean)
    }

    @Test func aBundleKeptAgainWhileLeasedStaysWhenTheLeaseEnds() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let shelf = try Self.stock(fixture, cache, for: .scopeChange)
        let lease = try cache.lease(shelf.shown)
        try Self.remove(.scopeChange, shelf, root: fixture.root, cache)
        // The user goes back to the first revision (a rollback) before dismissing it.
        _ = try cache.retain(scope: "journey-a", keeping: [shelf.shown])
        lease.release()
        #expect(try fixture.sweepWhenFree(cache) != nil)
        try Self.expectWhole(shelf, root: fixture.root, cache, "kept again by its scope")
    }

    /// Process ids are reused: a lease row is told apart by its holder's start mark, not by a
    /// live process having its id. A row of this process's id with another start mark is a dead
    /// process's; a row without a mark (written before marks were recorded) counts while a
    /// process has its id.
    @Test func aLeaseOfAnEarlierProcessWithTheSameIdIsDead() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let shelf = try Self.stock(fixture, cache, for: .scopeChange)
        let other = try cache.install(archiveAt: try fixture.file(try bundle("other", ["a.css": "other"]).archive)).bundle
        _ = try cache.retain(scope: "journey-b", keeping: [other])
        let earlier = LeaseHolder(pid: ProcessID.current, start: ProcessID.currentStart + "-earlier")
        let unmarked = LeaseHolder(pid: ProcessID.current, start: "")
        try cache.index.withLock { (index) throws(CacheError) in
            try index.addLease(shelf.shown, holder: earlier, token: 1)
            try index.addLease(other, holder: unmarked, token: 2)
        }
        #expect(!earlier.isAlive)
        #expect(unmarked.isAlive)

        #expect(try cache.retain(scope: "journey-a", keeping: [shelf.next]).removed == [shelf.shown])
        #expect(try cache.retain(scope: "journey-b", keeping: []).deferred == [other])
        #expect(try cache.bundle(other) != nil)
    }

    @Test func startMarksTellProcessesApart() throws {
        #expect(!ProcessID.currentStart.isEmpty)
        #expect(ProcessID.startMark(of: ProcessID.current) == ProcessID.currentStart)
        #expect(ProcessID.isAlive(ProcessID.current, start: ProcessID.currentStart))
        // A child that ended: a zombie until reaped, then no process at all.
        var pid: pid_t = 0
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { free(argv[0]) }
        #expect(posix_spawn(&pid, "/bin/true", nil, nil, &argv, environ) == 0)
        let start = ProcessID.startMark(of: pid) ?? ""
        var info = siginfo_t()
        #expect(waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == 0)
        #expect(ProcessID.isAlive(pid))  // the zombie has the id
        #expect(ProcessID.startMark(of: pid) == nil)
        #expect(!ProcessID.isAlive(pid, start: start.isEmpty ? "unknown" : start))
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(ProcessID.startMark(of: pid) == nil)
    }
}
