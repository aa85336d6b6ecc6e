import Testing

@testable import LarderFetch

/// ``FetchRoute`` as a table: the objects only when the cache (and patches) save at least 5% of
/// the bundle's raw bytes; the archive otherwise, and always when nothing is cached.
@Suite("Fetch route rule")
struct FetchRouteTests {
    @Test("Objects only when cached plus patched bytes are at least 5% of the bundle", arguments: [
        // bundle, missing, patched, route
        (100_000_000 as Int64, 100_000_000 as Int64, 0 as Int64, FetchRoute.archive),  // nothing cached
        (100_000_000, 99_940_000, 0, .archive),  // one 60 kB media file of 100 MB (the bench's seed)
        (100_000_000, 95_000_001, 0, .archive),  // one byte short of 5%
        (100_000_000, 95_000_000, 0, .objects),  // exactly 5%
        (100_000_000, 50_000_000, 0, .objects),  // half cached
        (100_000_000, 0, 0, .objects),  // every object cached, the bundle not yet installed
        (100_000_000, 99_940_000, 4_940_000, .objects),  // patches make up the share
        (100_000_000, 99_940_000, 4_939_999, .archive),  // patches one byte short
        (65_000, 64_800, 63_000, .objects),  // a one-line change of a 63 kB script, its patch known
        (65_000, 64_800, 0, .archive),  // the same without the patch
        (100_000_000, 100_000_000, 50_000_000, .archive),  // nothing cached: patches do not count
        (100_000_000, 99_000_000, 200_000_000, .objects),  // patched bytes are bounded by the missing ones
        (0, 0, 0, .archive),  // an empty bundle
    ] as [(Int64, Int64, Int64, FetchRoute)])
    func route(_ bundle: Int64, _ missing: Int64, _ patched: Int64, _ expected: FetchRoute) {
        #expect(FetchRoute(bundleBytes: bundle, missingBytes: missing, patchedBytes: patched) == expected)
    }

    @Test("The patch index is read first only when something is cached but too little on its own", arguments: [
        (100_000_000 as Int64, 100_000_000 as Int64, false),  // nothing cached: the archive, no index
        (100_000_000, 99_940_000, true),  // one small object: patches may decide
        (100_000_000, 95_000_001, true),
        (100_000_000, 95_000_000, false),  // the objects path on its own (it reads the index itself)
        (100_000_000, 0, false),
        (0, 0, false),
    ] as [(Int64, Int64, Bool)])
    func patchesCanDecide(_ bundle: Int64, _ missing: Int64, _ expected: Bool) {
        #expect(FetchRoute.patchesCanDecide(bundleBytes: bundle, missingBytes: missing) == expected)
    }

    @Test("The threshold is 5%")
    func threshold() {
        #expect(FetchRoute.minimumSavedShare == 0.05)
    }
}
