import LarderFormat
import Testing

/// Staged rollouts (issue 15): who gets the new bundle is a stable hash of the journey and the
/// identity's id.
@Suite struct RolloutTests {
    static let ids = (0..<10_000).map { "usr_\($0)" }
    static let new = SHA256Hasher.hash(Array("new".utf8))
    static let old = SHA256Hasher.hash(Array("old".utf8))

    @Test func tenPercentOfTenThousandIdentitiesLandWithinOneAndAHalfPoints() {
        let rollout = JourneyDocument.Rollout(percent: 10, previous: Self.old)
        let share = Double(Self.ids.filter { rollout.includes(journey: "paywall", id: $0) }.count) / Double(Self.ids.count)
        #expect(abs(share - 0.10) <= 0.015, "\(share)")
        // Another journey draws another sample of the same people.
        let other = Set(Self.ids.filter { rollout.includes(journey: "onboarding", id: $0) })
        let these = Set(Self.ids.filter { rollout.includes(journey: "paywall", id: $0) })
        #expect(other != these)
    }

    @Test func raisingThePercentageOnlyAddsPeopleAndEveryRunAgrees() {
        var previous: Set<String> = []
        for percent in [1, 10, 50, 99] {
            let rollout = JourneyDocument.Rollout(percent: percent, previous: Self.old)
            let included = Set(Self.ids.filter { rollout.includes(journey: "paywall", id: $0) })
            #expect(included.isSuperset(of: previous), "raising to \(percent)% took someone out")
            #expect(abs(Double(included.count) / 10_000 - Double(percent) / 100) <= 0.015)
            previous = included
        }
        // Pinned: a change to the hash would move people between bundles on an app update.
        // Values from Python's hashlib: int.from_bytes(sha256(b"paywall\nusr_1")[:8], "big") % 100.
        #expect(JourneyDocument.Rollout.bucket(journey: "paywall", id: "usr_1") == 97)
        #expect(JourneyDocument.Rollout.bucket(journey: "onboarding", id: "usr_2") == 93)
        #expect(Self.ids.map { JourneyDocument.Rollout.bucket(journey: "paywall", id: $0) }.allSatisfy { (0..<100).contains($0) })
    }

    @Test func aDocumentGivesEachIdentityItsBundleAndRoundTrips() throws {
        let document = JourneyDocument(
            journey: "paywall", revision: 3, bundle: Self.new, refresh: 600, published: "2026-11-30T12:00:00Z",
            rollout: JourneyDocument.Rollout(percent: 10, previous: Self.old))
        let bundles = Self.ids.map { document.bundle(for: $0) }
        #expect(Set(bundles) == [Self.new, Self.old])
        #expect(try JourneyDocument(decoding: document.canonicalBytes) == document)
        var full = document
        full.rollout = nil
        #expect(Set(Self.ids.prefix(100).map { full.bundle(for: $0) }) == [Self.new])
    }

    @Test(arguments: [
        (#"{"percent":0,"previous":"sha256:\#(String(repeating: "0", count: 64))"}"#, "rollout.percent"),
        (#"{"percent":100,"previous":"sha256:\#(String(repeating: "0", count: 64))"}"#, "rollout.percent"),
        (#"{"percent":10}"#, "rollout"),
        (#"{"percent":"10","previous":"x"}"#, "rollout"),
    ])
    func aMalformedRolloutIsRefused(_ rollout: String, _ field: String) {
        var text = String(
            decoding: JourneyDocument(journey: "j", revision: 1, bundle: Self.new, refresh: 600, published: "2026-11-30T12:00:00Z").canonicalBytes,
            as: UTF8.self)
        text.removeLast()
        text += #","rollout":\#(rollout)}"#
        let error = #expect(throws: FormatError.self) { try JourneyDocument(decoding: Array(text.utf8)) }
        #expect(error?.field == field, "\(String(describing: error))")
    }
}
