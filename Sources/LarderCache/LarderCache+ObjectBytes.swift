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

extension LarderCache {
    /// Whether a bundle in the cache uses the object and it is not quarantined: what a fetch
    /// asks before choosing the object as a patch's base (it reads it with
    /// ``verifiedObject(_:size:)`` afterwards, which may still find it gone or damaged).
    /// - Throws: ``CacheError`` when the index cannot be read.
    public func holdsObject(_ digest: Digest) throws(CacheError) -> Bool {
        try index.withLock { (index) throws(CacheError) -> Bool in try index.isStored(digest) }
    }

    /// Which of `objects` the cache holds (``holdsObject(_:)`` for each, in one pass over the
    /// index): what a fetch asks once about every patch base it could use.
    /// - Throws: ``CacheError`` when the index cannot be read.
    public func heldObjects(among objects: Set<Digest>) throws(CacheError) -> Set<Digest> {
        guard !objects.isEmpty else { return [] }
        return try index.withLock { (index) throws(CacheError) -> Set<Digest> in try index.stored(among: objects) }
    }
}
