import Foundation
import LarderFormat
import Testing
@testable import LarderHost

/// ``RolloutAssignment`` as a table: a bucket below the percentage is on the new bundle, the
/// rest on the previous one; no rollout, no assignment; and the side agrees with the bundle
/// ``JourneyDocument/bundle(for:)`` picks.
@Suite("Rollout assignment rule")
struct RolloutAssignmentTableTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var bucket: Int
        var percent: Int
        var side: RolloutAssignment.Side
        var testDescription: String { "bucket \(bucket) of \(percent)% → \(side.rawValue)" }
    }

    @Test("Bucket and percentage decide the side", arguments: [
        Row(bucket: 0, percent: 1, side: .new),
        Row(bucket: 1, percent: 1, side: .previous),
        Row(bucket: 9, percent: 10, side: .new),
        Row(bucket: 10, percent: 10, side: .previous),
        Row(bucket: 49, percent: 50, side: .new),
        Row(bucket: 99, percent: 50, side: .previous),
        Row(bucket: 98, percent: 99, side: .new),
        Row(bucket: 99, percent: 99, side: .previous),
    ])
    func decide(_ row: Row) {
        #expect(RolloutAssignment.decide(bucket: row.bucket, percent: row.percent) == RolloutAssignment(bucket: row.bucket, percent: row.percent, side: row.side))
    }

    static let new = Digest(bytes: [UInt8](repeating: 1, count: 32))
    static let previous = Digest(bytes: [UInt8](repeating: 2, count: 32))

    static func document(percent: Int?) -> JourneyDocument {
        JourneyDocument(
            journey: "journey_123", revision: 4, bundle: new, refresh: 900, published: "2026-12-01T10:00:00Z",
            rollout: percent.map { JourneyDocument.Rollout(percent: $0, previous: previous) })
    }

    @Test("No rollout, no assignment")
    func noRollout() {
        #expect(RolloutAssignment.of(Self.document(percent: nil), id: "usr_1") == nil)
    }

    @Test("For ids 0–199 at 1, 30 and 99 %: the bucket is the document's hash and the side picks the bundle bundle(for:) does", arguments: [1, 30, 99])
    func agreesWithDocument(percent: Int) throws {
        let document = Self.document(percent: percent)
        var sides = Set<RolloutAssignment.Side>()
        for id in (0..<200).map({ "usr_\($0)" }) {
            let assignment = try #require(RolloutAssignment.of(document, id: id))
            #expect(assignment.bucket == JourneyDocument.Rollout.bucket(journey: "journey_123", id: id))
            #expect(assignment.percent == percent)
            #expect(assignment.bundle(of: document) == document.bundle(for: id), "\(id)")
            sides.insert(assignment.side)
        }
        #expect(sides == [.new, .previous])
    }
}
