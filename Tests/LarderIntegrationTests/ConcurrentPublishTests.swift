import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// Several `larder publish` and `larder keys` processes on one origin at once lose nothing:
/// each journey revision is numbered once and recorded in the history, and every grant stays.
@Suite struct ConcurrentPublishTests {
    @Test func concurrentPublishesAndGrantsLoseNothing() async throws {
        let work = try Workspace()
        let origin = work.path + "/origin"
        let archives = try ["onboarding", "paywall", "legacy-prompt"].map { try work.pack(sampleBundles + "/" + $0).archivePath }
        _ = try OriginPublisher.publish(archives: archives, to: origin, journey: nil)  // the objects, once
        // Each process points the journey at another bundle than the one before it would see.
        var running = try (0..<6).map { index in
            try LarderProcess.start(["publish", archives[index % 3], "--origin", origin, "--journey", "j", "--key", "pk_\(index)"])
        }
        running += try (6..<12).map { index in
            try LarderProcess.start(["keys", "grant", "pk_\(index)", "--journey", "j", "--origin", origin])
        }
        for process in running {
            let outcome = await process.wait(watchdog: .seconds(60))
            #expect(outcome.status == 0, "\(outcome)")
        }
        let keys = try AccessMaps(origin: origin).list()
        #expect(Set(keys.keys) == Set((0..<12).map { "pk_\($0)" }), "\(keys.keys.sorted())")
        #expect(keys.values.allSatisfy { $0 == ["j"] })
        let history = try JourneyHistory.read(journey: "j", origin: origin)
        let revisions = history.entries.map(\.revision)
        #expect(revisions == Array(1...Int64(revisions.count)), "\(revisions)")
        #expect(try OriginPublisher.currentDocument(journey: "j", origin: origin)?.revision == revisions.last)
    }
}
