/// How a fetch brings a bundle the cache does not hold complete: the whole archive (one
/// request, compressed across files), or only the objects the cache lacks (a request each,
/// each compressed on its own).
///
/// Objects only when what the cache saves is a real share of the bundle: the raw bytes of the
/// bundle's objects the cache holds, plus those of missing objects a patch will make
/// (Docs/Patches.md), at least ``minimumSavedShare`` (5%) of the raw bytes of all its distinct
/// objects. Nothing cached: the archive, whatever patches there are (the patch index is not
/// read for it).
///
/// Why 5%, from `larder-bench transport` (a 100 MB corpus of 1,647 files, a 60.7 MB archive,
/// over loopback). With one media file cached, the objects path moved 1.006 times the
/// archive's bytes (the 0.5% manifest included, which the archive path moves too: 1.005) in
/// 1,646 requests instead of one, and took about twice as long (0.95–1.39 times `curl | tar`
/// of the archive, against 0.52–0.79 for the archive). Per-file gzip costs little here (0.1%;
/// more for small text files, which compress across files); the requests cost most: at least
/// a round trip per ``BundleFetcher/Configuration/parallelism`` objects on a real link. So a
/// share of a fraction of a percent saves nothing worth them; at 5% the objects path saves
/// about fifty times its byte overhead, a twentieth of the transfer on the cellular links
/// preloads run over. What the objects path is for is far above it: a bundle sharing a font
/// with one fetched before (the samples: 31% and 49%), an update changing a few files, half
/// the corpus's media cached (0.58 of the archive moved).
enum FetchRoute: Sendable, Equatable {
    /// The whole archive.
    case archive
    /// The objects the cache lacks, from patches where they have one.
    case objects

    /// The least share of a bundle's raw bytes the cache (and patches) must save for the
    /// objects path.
    static let minimumSavedShare = 0.05

    /// - Parameters:
    ///   - bundleBytes: the raw bytes of the bundle's distinct objects.
    ///   - missingBytes: the raw bytes of those the cache lacks.
    ///   - patchedBytes: the raw bytes of missing objects a patch will make (0 when patches
    ///     are off, or the index was not read).
    init(bundleBytes: Int64, missingBytes: Int64, patchedBytes: Int64 = 0) {
        let cached = bundleBytes - missingBytes
        guard cached > 0 else {
            self = .archive
            return
        }
        let saved = cached + min(max(patchedBytes, 0), missingBytes)
        self = Double(saved) >= Double(bundleBytes) * Self.minimumSavedShare ? .objects : .archive
    }

    /// Whether patches could change the route: the cache holds some of the bundle, but too
    /// little for the objects path on its own. Only then is the patch index read before the
    /// route is chosen (the objects path reads it anyway; nothing cached never does).
    static func patchesCanDecide(bundleBytes: Int64, missingBytes: Int64) -> Bool {
        bundleBytes - missingBytes > 0 && FetchRoute(bundleBytes: bundleBytes, missingBytes: missingBytes) == .archive
    }
}
