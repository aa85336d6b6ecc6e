import LarderFormat

/// Who holds a bundle and what it costs: the scopes (journeys) that keep it, and its bytes
/// split into those only it uses and those it shares with other bundles (fonts, images).
public struct BundleUsage: Sendable, Equatable {
    /// The names of the scopes keeping it (journey ids; a scope without a name by its id),
    /// sorted; one entry per scope, so a journey prepared for two people appears twice.
    public var scopes: [String]
    /// Bytes of the objects no other bundle uses: what evicting this bundle alone frees.
    public var uniqueBytes: Int64
    /// Bytes of the objects other bundles use too: they stay when this bundle goes.
    public var sharedBytes: Int64

    public init(scopes: [String], uniqueBytes: Int64, sharedBytes: Int64) {
        self.scopes = scopes
        self.uniqueBytes = uniqueBytes
        self.sharedBytes = sharedBytes
    }
}

extension LarderCache {
    /// The scopes holding each bundle and its unique and shared bytes, from the index (works
    /// read-only). Quarantined objects count for nothing: they are already gone.
    /// - Complexity: O(f log f) in the number of file rows, inside SQLite (one query); the
    ///   result has one entry per bundle.
    public func bundleUsage() throws(CacheError) -> [Digest: BundleUsage] {
        // Three reads: a listing may miss a change made between them, never show a torn row.
        let (bytes, scopes, bundles) = try index.withLock { (index) throws(CacheError) in
            (try index.bytesBySharing(), try index.scopesByBundle(), try index.bundles().map(\.digest))
        }
        var result: [Digest: BundleUsage] = [:]
        for bundle in bundles {
            let split = bytes[bundle] ?? (0, 0)
            result[bundle] = BundleUsage(scopes: scopes[bundle] ?? [], uniqueBytes: split.unique, sharedBytes: split.shared)
        }
        return result
    }
}
