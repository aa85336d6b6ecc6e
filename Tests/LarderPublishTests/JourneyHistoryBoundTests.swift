import Foundation
import LarderFormat
import LarderPublish
import Testing

/// Issue 35, item 6: what a written history keeps (``JourneyHistory/bounded(for:)``): the newest
/// revisions, the one a plain rollback goes to and the bundle the rest of a rollout keep,
/// however far back; and never more bytes than a reader takes.
@Suite struct JourneyHistoryBoundTests {
    static let bundles = (0..<4).map { SHA256Hasher.hash(Array("bundle \($0)".utf8)) }

    static func history(_ bundleOf: (Int64) -> Int, count: Int64, published: String = "2025-06-01T00:00:00Z") -> JourneyHistory {
        JourneyHistory(entries: (1...count).map { JourneyHistory.Entry(revision: $0, bundle: bundles[bundleOf($0)], published: published, signer: nil) })
    }

    static func document(_ revision: Int64, bundle: Int, rollout previous: Int? = nil) -> JourneyDocument {
        JourneyDocument(
            journey: "j", revision: revision, bundle: bundles[bundle], refresh: 600, published: "2025-06-01T00:00:00Z",
            rollout: previous.map { JourneyDocument.Rollout(percent: 10, previous: bundles[$0]) })
    }

    /// (what, history size, bundle of each revision, the current document, revisions kept
    /// besides the newest 1,000)
    static let cases: [(String, Int64, @Sendable (Int64) -> Int, JourneyDocument, [Int64])] = [
        ("a short history is kept whole", 10, { $0 % 2 == 0 ? 0 : 1 }, document(10, bundle: 0), []),
        ("the newest revisions, when every rollback target is among them", 5_000, { Int($0 % 3) }, document(5_000, bundle: 2), []),
        ("a plain rollback's target far back", 5_000, { $0 == 7 ? 1 : 0 }, document(5_000, bundle: 0), [7]),
        ("the bundle the rest of a rollout keep", 5_000, { $0 == 3 ? 2 : ($0 == 9 ? 1 : 0) }, document(5_000, bundle: 0, rollout: 2), [3, 9]),
        ("only the newest revision of a needed bundle", 5_000, { $0 <= 20 ? 1 : 0 }, document(5_000, bundle: 0), [20]),
    ]

    @Test(arguments: cases.indices)
    func aWrittenHistoryKeepsTheNewestRevisionsAndWhatRollbackNeeds(_ index: Int) throws {
        let (what, count, bundleOf, current, older) = Self.cases[index]
        let bounded = Self.history(bundleOf, count: count).bounded(for: current)
        let newest = Array(max(1, count - Int64(JourneyHistory.keptRevisions) + 1)...count)
        #expect(bounded.entries.map(\.revision) == older + newest, "\(what)")
        #expect(bounded.entries.allSatisfy { $0.bundle == Self.bundles[bundleOf($0.revision)] }, "\(what)")
        // What a plain rollback chooses is the same from the bounded history as from the whole.
        let whole = Self.history(bundleOf, count: count)
        #expect(
            (try? bounded.rollbackTarget(from: current, to: nil)) == (try? whole.rollbackTarget(from: current, to: nil)),
            "\(what)")  // nil on both sides when neither has one
    }

    /// Entries far longer than Larder writes (a hand-edited history): the oldest go until the
    /// history fits what a reader takes, the newest and the rollback's target stay.
    @Test func aHistoryOfHugeEntriesIsCutToWhatAReaderTakes() throws {
        let long = String(repeating: "x", count: 9_000)
        let current = Self.document(1_000, bundle: 0)
        let history = Self.history({ $0 == 1 ? 1 : 0 }, count: 1_000, published: long)
        #expect(history.bytes.count > JourneyHistory.maximumBytes)
        let bounded = history.bounded(for: current)
        #expect(bounded.bytes.count <= JourneyHistory.maximumBytes, "\(bounded.bytes.count)")
        #expect(bounded.bytes.count > JourneyHistory.maximumBytes - 2 * 9_100, "cut no further than needed: \(bounded.bytes.count)")
        #expect(bounded.entries.first?.revision == 1 && bounded.entries.last?.revision == 1_000)
        #expect(bounded.entries.map(\.revision) == bounded.entries.map(\.revision).sorted())
    }
}
