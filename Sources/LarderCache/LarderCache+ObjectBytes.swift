import LarderFormat

extension LarderCache {
    /// An object's verified bytes without a lease, for tools that inspect what is stored
    /// (`larder diff --cache`); works on a read-only cache.
    /// - Parameters:
    ///   - size: the object's size, as a manifest of the cache lists it.
    ///   - digest: the object's SHA-256 digest.
    /// - Throws: ``CacheError/Code/corruptObject`` naming the digest, or a storage error.
    public func verifiedObject(_ digest: Digest, size: Int64) throws(CacheError) -> [UInt8] {
        try verifiedBytes(digest, size: size)
    }
}
