import LarderFetch
import LarderFormat
import LarderTransport
import Testing

@testable import LarderHost

/// How a fetch reads in the journey timeline: bytes by kind, and patches applied and fallen
/// back from, when there were any.
struct FetchTimelineTests {
    static let bundle = Digest(bytes: [UInt8](repeating: 7, count: 32))

    @Test(arguments: [
        (FetchResult(bundle: bundle, source: .cache, bytesDownloaded: 0, requests: 0), "0 bytes in 0 requests"),
        (
            FetchResult(bundle: bundle, source: .archive, bytesDownloaded: 900, requests: 2, bytesByKind: FetchBytes(manifest: 100, archive: 800)),
            "900 bytes in 2 requests (manifest 100, archive 800)"
        ),
        (
            FetchResult(bundle: bundle, source: .objects, bytesDownloaded: 500, requests: 2, bytesByKind: FetchBytes(manifest: 100, objects: 400)),
            "500 bytes in 2 requests (manifest 100, objects 400)"
        ),
        (
            FetchResult(
                bundle: bundle, source: .objects, bytesDownloaded: 1_650, requests: 4, bytesByKind: FetchBytes(manifest: 1_000, patches: 650),
                patchesApplied: 1),
            "1650 bytes in 4 requests (manifest 1000, objects 0, patches 650); 1 patch applied, 0 fallbacks"
        ),
        (
            FetchResult(
                bundle: bundle, source: .objects, bytesDownloaded: 21_000, requests: 5,
                bytesByKind: FetchBytes(manifest: 1_000, objects: 19_600, patches: 400), patchesApplied: 2, patchFallbacks: 1),
            "21000 bytes in 5 requests (manifest 1000, objects 19600, patches 400); 2 patches applied, 1 fallback"
        ),
    ])
    func readsAsTheTimelineShowsIt(_ result: FetchResult, _ expected: String) {
        #expect(result.timelineDetail == expected)
    }
}
