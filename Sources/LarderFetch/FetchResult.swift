import LarderFormat

/// How a bundle reached the cache.
public struct FetchResult: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// It was already there, or another process sharing the cache brought it in while
        /// this fetch waited: nothing was downloaded.
        case cache
        /// Only the objects the cache lacked were downloaded (or made from patches): the cache
        /// held at least 5% of the bundle's bytes, patched objects counted.
        case objects
        /// The whole archive was downloaded: nothing of the bundle was cached, or less than the
        /// 5% of its bytes (patched objects counted) the objects path needs.
        case archive
    }

    public var bundle: Digest
    public var source: Source
    /// Body bytes received over the network (compressed, where they came compressed).
    public var bytesDownloaded: Int64
    /// HTTP requests sent, retries included.
    public var requests: Int
    /// ``bytesDownloaded`` by what the bytes were.
    public var bytesByKind = FetchBytes()
    /// Objects made from patches (Docs/Patches.md).
    public var patchesApplied = 0
    /// Times a patch could not be used and the object was fetched whole instead: a patch
    /// missing, damaged, of a base gone from the cache, making other bytes, past a limit; or
    /// an index that could not be read (once).
    public var patchFallbacks = 0

    public init(
        bundle: Digest, source: Source, bytesDownloaded: Int64, requests: Int, bytesByKind: FetchBytes = FetchBytes(), patchesApplied: Int = 0,
        patchFallbacks: Int = 0
    ) {
        self.bundle = bundle
        self.source = source
        self.bytesDownloaded = bytesDownloaded
        self.requests = requests
        self.bytesByKind = bytesByKind
        self.patchesApplied = patchesApplied
        self.patchFallbacks = patchFallbacks
    }
}
