import Foundation
import LarderCache
import LarderFormat
import LarderTestSupport
import Synchronization
import Testing

/// What a hostile or broken origin does, and to which request.
enum OriginFault: String, Sendable, CaseIterable {
    case acceptAndNeverRead, readAndNeverAnswer, headersThenStall, drip, endlessBody, gzipBomb, wrongBytes
    case moreBytesThanContentLength, rangeIgnoredAndDropped, contentRangeLies, redirectLoop
    case gigabyteManifest, twoMillionFileManifest, crowdedManifest, hugeJourneyDocument, slowBundle

    /// The answer for `request`, or nil to serve the origin folder normally.
    func answer(_ request: FaultOrigin.Request, target: String, fixture: HostileFixture) -> FaultOrigin.Answer? {
        switch self {
        case .acceptAndNeverRead: return .acceptAndNeverRead
        case .readAndNeverAnswer: return .readAndNeverAnswer
        default: break
        }
        let path = request.path
        switch self {
        case .gigabyteManifest where path == fixture.onboardingManifest:
            return .stream(status: 200, headers: [], contentLength: 1 << 30, next: Self.chunks(count: 1024, of: Array(repeating: 0x20, count: 1 << 20)))
        case .twoMillionFileManifest where path == fixture.onboardingManifest:
            return .stream(status: 200, headers: [], contentLength: nil, next: Self.millionsOfFiles())
        case .crowdedManifest where path.hasSuffix("/manifest.json"):
            return .respond(status: 200, body: fixture.crowdedManifest)
        case .hugeJourneyDocument where path == fixture.journeyPath:
            return .stream(status: 200, headers: [], contentLength: 100 << 20, next: Self.chunks(count: 100, of: Array(repeating: 0x20, count: 1 << 20)))
        case .slowBundle where path == fixture.onboardingArchive:
            return .drip(status: 200, headers: [], body: (try? fixture.bytes(at: path)) ?? [], bytesPerSecond: 20_000)
        default: break
        }
        guard path == target, let real = try? fixture.bytes(at: path) else { return nil }  // unreadable: served as a 404
        switch self {
        case .headersThenStall: return .headersThenStall(status: 200, headers: [], contentLength: real.count)
        case .drip: return .drip(status: 200, headers: [], body: real, bytesPerSecond: 1)
        case .endlessBody: return .endless(status: 200, headers: [])
        case .gzipBomb:
            return .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: FaultOrigin.gzipBomb(inflatedSize: 1 << 30))
        case .wrongBytes: return .respond(status: 200, body: real.map { $0 ^ 0x5A })
        case .moreBytesThanContentLength:
            return .raw(head: "HTTP/1.1 200 OK\r\nContent-Length: \(real.count - 10)\r\n", body: real + Array(repeating: 0x41, count: 4096), close: true)
        case .rangeIgnoredAndDropped:
            return .raw(head: "HTTP/1.1 200 OK\r\nContent-Length: \(real.count)\r\n", body: Array(real.prefix(real.count / 2)), close: true)
        case .contentRangeLies:
            return .raw(
                head: "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-1048575/1099511627776\r\nContent-Length: 1048576\r\n",
                body: Array(repeating: 0, count: 1 << 20), close: true)
        case .redirectLoop: return .redirect(to: path)
        default: return nil
        }
    }

    /// `count` copies of `chunk`, one per call.
    static func chunks(count: Int, of chunk: [UInt8]) -> @Sendable () -> [UInt8]? {
        let left = Atomic(count)
        return { left.subtract(1, ordering: .relaxed).newValue >= 0 ? chunk : nil }
    }

    /// A manifest of two million file entries (360 MB), sent in pieces of ten thousand
    /// entries: the client must stop at its 16 MiB bound long before the end.
    static func millionsOfFiles() -> @Sendable () -> [UInt8]? {
        let entry = #"{"digest":"sha256:\#(String(repeating: "0", count: 64))","essential":false,"mediaType":"text/plain","path":"f/0.txt","role":"data","size":1},"#
        let piece = Array(String(repeating: entry, count: 10_000).utf8)
        let next = Atomic(-1)
        return {
            let batch = next.add(1, ordering: .relaxed).newValue
            if batch == 0 { return Array(#"{"entry":"index.html","files":["#.utf8) }
            guard batch <= 200 else { return batch == 201 ? Array(#"{}],"format":1}"#.utf8) : nil }
            return piece
        }
    }
}

/// Where a fault is met: `larder cache fetch` down each of its two paths, and the journey host.
enum FetchEntry: String, Sendable, CaseIterable {
    /// An empty cache: the whole archive.
    case fetchArchive
    /// A cache holding paywall: only the objects it lacks.
    case fetchObjects
    case journeyPrepare, journeyPresent

    var isJourney: Bool { self == .journeyPrepare || self == .journeyPresent }

    /// How long the command may take: its deadline.
    var limit: Double { isJourney ? 2 : 3 }
}

struct HostileCase: Sendable, CustomTestStringConvertible {
    var fault: OriginFault
    var entry: FetchEntry
    var testDescription: String { "\(fault.rawValue) during \(entry.rawValue)" }

    /// Whether the fault can only end at the deadline (the origin stalls or trickles) rather
    /// than by what it sends.
    var endsAtTheDeadline: Bool {
        switch fault {
        case .acceptAndNeverRead, .readAndNeverAnswer, .headersThenStall, .drip, .rangeIgnoredAndDropped, .slowBundle: true
        default: false
        }
    }

    /// The command's deadline and request timeout, in whole seconds. A fault that ends by what
    /// it sends gets them scaled (see `testTimeScale`): under ThreadSanitizer, on a loaded
    /// machine, an endless body was still unread at a 2 s timeout, a timeout instead of the
    /// size error the test is about. A fault that ends at the deadline keeps it as it is.
    var deadline: Int { Int((entry.limit * timeScale).rounded(.up)) }
    var requestTimeout: Int { Int((2 * timeScale).rounded(.up)) }
    private var timeScale: Double { endsAtTheDeadline ? 1 : testTimeScale }

    /// Every fault where it applies.
    static let all: [HostileCase] = OriginFault.allCases.flatMap { fault in
        FetchEntry.allCases.compactMap { entry -> HostileCase? in
            switch fault {
            case .gigabyteManifest, .twoMillionFileManifest, .crowdedManifest: entry == .fetchArchive ? HostileCase(fault: fault, entry: entry) : nil
            case .hugeJourneyDocument, .slowBundle: entry.isJourney ? HostileCase(fault: fault, entry: entry) : nil
            case .rangeIgnoredAndDropped, .contentRangeLies: entry == .fetchArchive ? HostileCase(fault: fault, entry: entry) : nil
            default: HostileCase(fault: fault, entry: entry)
            }
        }
    }

    /// The exit status `cache fetch` must end with (journeys: any failure).
    var expectedStatus: Int32? {
        guard !entry.isJourney else { return nil }
        switch fault {
        case .acceptAndNeverRead, .readAndNeverAnswer, .headersThenStall, .drip, .rangeIgnoredAndDropped: return 75
        case .redirectLoop: return 69
        default: return 65
        }
    }
}

/// Issue 10: whatever an origin does, every fetch ends within its limit plus 4 s (room for a busy machine), stays under
/// 200 MB, installs nothing, leaves the cache verifying clean and no partial file larger than
/// what was asked.
@Suite struct HostileOriginTests {
    @Test(arguments: HostileCase.all)
    func endsInTimeWithinMemoryAndInstallsNothing(_ scenario: HostileCase) async throws {
        let fixture = try await offThePool { try HostileFixture.shared() }
        let seeded = scenario.entry == .fetchObjects
        let cachePath = try await offThePool { try fixture.cache(seeded: seeded) }
        let target: String
        var digest = fixture.onboarding.bundleDigest
        switch scenario.entry {
        case .fetchArchive: target = fixture.onboardingArchive
        case .fetchObjects: target = fixture.objectPath
        case .journeyPrepare, .journeyPresent: target = fixture.journeyPath
        }
        if scenario.fault == .crowdedManifest { digest = SHA256Hasher.hash(fixture.crowdedManifest) }
        let origin = try FaultOrigin { request in
            scenario.fault.answer(request, target: target, fixture: fixture) ?? .file(root: fixture.root)
        }

        let arguments: [String]
        switch scenario.entry {
        case .fetchArchive, .fetchObjects:
            arguments = [
                "cache", "fetch", digest.hex, "--origin", origin.base.absoluteString, "--cache", cachePath, "--deadline",
                "\(scenario.deadline)s", "--timeout", "\(scenario.requestTimeout)s",
            ]
        case .journeyPrepare, .journeyPresent:
            arguments = [
                "journey", scenario.entry == .journeyPrepare ? "prepare" : "present", "--origin", origin.base.absoluteString, "--key",
                HostileFixture.key, "--journey", HostileFixture.journey, "--cache", cachePath, "--deadline", "\(scenario.deadline)s",
                "--timeout", "\(scenario.requestTimeout)s",
            ]
        }
        let outcome = try await LarderProcess.run(arguments, watchdog: .seconds(scenario.deadline + 15))
        try await offThePool { origin.stop() }
        #expect(!outcome.killed, "\(outcome)")
        // The limit plus room for a machine busy with the rest of the suite (scaled, see
        // `testTimeScale`: an instrumented `larder` under load took 4.3 s past its deadline); a
        // hang is stopped by the watchdog at limit + 15 s (scaled too).
        #expect(outcome.elapsed <= Double(scenario.deadline) + 4 * testTimeScale, "\(outcome)")
        #expect(outcome.peakMemory > 1 << 20 && outcome.peakMemory < 200 << 20, "\(outcome)")
        #expect(outcome.status != 0, "\(outcome)")
        if let expected = scenario.expectedStatus { #expect(outcome.status == expected, "\(outcome)") }

        let (bundles, clean) = try await offThePool {
            let cache = try LarderCache(at: cachePath)
            return (try cache.bundles().map(\.digest), try cache.verify().isClean)
        }
        #expect(bundles == (seeded ? [fixture.paywall.bundleDigest] : []))
        #expect(clean)
        // What a later fetch may resume: never more than the archive can have.
        for name in try FileManager.default.contentsOfDirectory(atPath: cachePath + "/downloads") where name.hasSuffix(".part") {
            #expect(fileSize(cachePath + "/downloads/" + name) <= fixture.archiveBound, "\(name)")
        }
    }
}
