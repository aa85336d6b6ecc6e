import LarderFormat
import LarderTransport

extension FetchWork {
    /// Which way the bundle comes (``FetchRoute``), and the patch plan when the route needed
    /// it: read here only when the cache's share alone is too small for the objects path and
    /// patches are on, so that missing objects a patch will make count too.
    func route(_ verified: VerifiedManifest, missing: Set<Digest>) async throws(TransportError) -> (FetchRoute, PatchPlan?) {
        let sizes = Self.objectSizes(verified.manifest)
        let bundleBytes = sizes.values.reduce(0, +)
        let missingBytes = missing.reduce(0) { $0 + (sizes[$1] ?? 0) }
        guard configuration.usesPatches, FetchRoute.patchesCanDecide(bundleBytes: bundleBytes, missingBytes: missingBytes) else {
            return (FetchRoute(bundleBytes: bundleBytes, missingBytes: missingBytes), nil)
        }
        let plan = try await planPatches(verified.digest, missing: missing, sizes: sizes)
        let patchedBytes = plan.chosen.keys.reduce(0) { $0 + (sizes[$1] ?? 0) }
        return (FetchRoute(bundleBytes: bundleBytes, missingBytes: missingBytes, patchedBytes: patchedBytes), plan)
    }

    /// Each distinct object of `manifest` with its size (files sharing an object count once).
    static func objectSizes(_ manifest: Manifest) -> [Digest: Int64] {
        var sizes: [Digest: Int64] = [:]
        for file in manifest.files { sizes[file.digest] = file.size }
        return sizes
    }
}
