/// The bytes a fetch received, by kind; they add up to ``FetchResult/bytesDownloaded``.
public struct FetchBytes: Sendable, Equatable {
    /// The manifest.
    public var manifest: Int64 = 0
    /// The whole archive, when the fetch took it (`FetchResult.Source.archive`).
    public var archive: Int64 = 0
    /// Objects fetched whole (fallbacks included).
    public var objects: Int64 = 0
    /// The patch index and the patches, those that failed included; with the archive, the
    /// index read to choose the route, when it was.
    public var patches: Int64 = 0

    public init(manifest: Int64 = 0, archive: Int64 = 0, objects: Int64 = 0, patches: Int64 = 0) {
        self.manifest = manifest
        self.archive = archive
        self.objects = objects
        self.patches = patches
    }
}
