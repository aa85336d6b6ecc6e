@testable import LarderFormat
import Testing

/// "Did you mean": the nearest known name by edit distance, only when near enough to be a slip.
@Suite struct ClosestNameTests {
    @Test(arguments: [
        ("pakc", "pack"),  // two neighbours swapped: one edit
        ("--ouput", "--output"),  // one left out
        ("entyr", "entry"),
        ("verfy", "verify"),
        ("--jorney", "--journey"),
        ("capabilites", "capabilities"),
    ])
    func aSlipFindsTheNameMeant(_ typed: String, _ meant: String) {
        #expect(ClosestName.suggesting(typed, among: ["pack", "publish", "--output", "--origin", "entry", "verify", "--journey", "capabilities"]) == meant)
    }

    @Test func farNamesKnownNamesAndTiesAreHandled() {
        #expect(ClosestName.suggesting("frobnicate", among: ["pack", "verify"]) == nil)
        #expect(ClosestName.suggesting("pack", among: ["pack", "packs"]) == nil, "a known name needs no hint")
        // Short names allow one edit only: "ab" is not a slip of "xyz".
        #expect(ClosestName.suggesting("ls", among: ["gc"]) == nil)
        #expect(ClosestName.suggesting("lx", among: ["ls", "lz"]) == "ls", "a tie goes to the first")
        #expect(ClosestName.hint("verfy", among: ["verify"]) == "; did you mean 'verify'?")
        #expect(ClosestName.hint("zzz", among: ["verify"]) == "")
    }

    @Test func theDistanceCountsEachEditOnce() {
        func distance(_ a: String, _ b: String) -> Int { ClosestName.editDistance(Array(a), Array(b)) }
        #expect(distance("", "abc") == 3)
        #expect(distance("abc", "abc") == 0)
        #expect(distance("abc", "acb") == 1)
        #expect(distance("kitten", "sitting") == 3)
        #expect(distance("ca", "abc") == 3)  // optimal string alignment, not Damerau's unrestricted distance (2)
    }
}
