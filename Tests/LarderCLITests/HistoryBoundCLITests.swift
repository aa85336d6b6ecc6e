import Foundation
import LarderFormat
import Testing

/// Issue 35, item 6: a journey's history is bounded. One that Larder wrote past its old 4 MiB
/// read limit (about 28,000 revisions: the publish that crossed it wrote a history the next
/// read refused, and publish and rollback exited 65 for good) is read, rolled back and
/// published on, and what is written again keeps the newest revisions and what a rollback
/// needs, far below the limit.
@Suite struct HistoryBoundCLITests {
    /// The history of `revisions` revisions the old code would have written: revision 1
    /// served `first`, every later one `second` (a long run of one bundle: refresh changes,
    /// rollout steps), and the document at the last.
    static func writeLongHistory(_ revisions: Int64, first: Digest, second: Digest, origin: String) throws -> Int {
        var text = "["
        text.reserveCapacity(Int(revisions) * 130)
        for revision in 1...revisions {
            if revision > 1 { text += "," }
            let bundle = revision == 1 ? first : second
            text += "{\"bundle\":\"\(bundle)\",\"published\":\"2025-06-01T00:00:00Z\",\"revision\":\(revision),\"signer\":null}"
        }
        text += "]"
        try Data(text.utf8).write(to: URL(fileURLWithPath: origin + "/journeys/j.history.json"))
        let document = JourneyDocument(journey: "j", revision: revisions, bundle: second, refresh: 600, published: "2025-06-01T00:00:00Z")
        try Data(document.canonicalBytes).write(to: URL(fileURLWithPath: origin + "/journeys/j.json"))
        return text.utf8.count
    }

    static func digest(of archive: String) throws -> Digest {
        try Digest(hex: (archive as NSString).lastPathComponent.replacingOccurrences(of: ".tar.gz", with: ""))
    }

    @Test func aHistoryPastTheOldLimitStillRollsBackAndPublishesAndIsWrittenBounded() throws {
        let scratch = try Scratch()
        let archives = try ["legacy-prompt", "paywall"].map { try packSample($0, into: scratch.path) }
        let origin = scratch.path + "/origin"
        for archive in archives { #expect(try CLI.run(["publish", archive, "--origin", origin, "--journey", "j"]).status == 0) }
        let (first, second) = (try Self.digest(of: archives[0]), try Self.digest(of: archives[1]))
        let size = try Self.writeLongHistory(28_000, first: first, second: second, origin: origin)
        #expect(size > 4 << 20, "the history is past the old read limit: \(size) bytes")

        // The emergency lever: back to revision 1's bundle, 27,999 revisions back.
        let rollback = try CLI.run(["publish", "--origin", origin, "--journey", "j", "--rollback", "--json"])
        #expect(rollback.status == 0, "\(rollback)")
        var document = try #require(try JSONSerialization.jsonObject(with: Data(rollback.stdout.utf8)) as? [String: Any])["journey"] as? [String: Any]
        #expect(document?["revision"] as? Int == 28_001 && document?["bundle"] as? String == first.description, "\(rollback.stdout)")

        let published = try CLI.run(["publish", archives[1], "--origin", origin, "--journey", "j", "--json"])
        #expect(published.status == 0, "\(published)")
        document = try #require(try JSONSerialization.jsonObject(with: Data(published.stdout.utf8)) as? [String: Any])["journey"] as? [String: Any]
        #expect(document?["revision"] as? Int == 28_002 && document?["bundle"] as? String == second.description, "\(published.stdout)")

        let listed = try CLI.run(["journey", "history", "--origin", origin, "--journey", "j", "--json"])
        #expect(listed.status == 0, "\(listed)")
        let history = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let revisions = (history["revisions"] as? [[String: Any]] ?? []).compactMap { $0["revision"] as? Int }
        #expect(revisions.count == 1_000, "\(revisions.count) revisions kept")
        #expect(revisions.first == 27_003 && revisions.last == 28_002 && revisions == revisions.sorted(), "\(revisions.prefix(3)) … \(revisions.suffix(3))")
        let written = try #require(FileManager.default.attributesOfItem(atPath: origin + "/journeys/j.history.json")[.size] as? Int)
        #expect(written < 256 << 10, "\(written) bytes")

        // Rolling back again goes to the rollback's revision, still in the history.
        let again = try CLI.run(["publish", "--origin", origin, "--journey", "j", "--rollback", "--to", "28001"])
        #expect(again.status == 0 && again.stdout.contains("journey j revision 28003 -> \(first)"), "\(again) \(again.stdout)")
        // A revision the history no longer keeps is named as such.
        let pruned = try CLI.run(["publish", "--origin", origin, "--journey", "j", "--rollback", "--to", "5"])
        #expect(pruned.status == 65 && pruned.stderr.contains("keeps the newest 1000 revisions"), "\(pruned)")
    }
}
