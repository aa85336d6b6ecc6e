import LarderFormat

/// Where `larder publish` writes an origin: a local folder a static server serves
/// (``LocalFolderTarget``) or an object store (LarderS3's `S3Target`).
///
/// Two kinds of paths, two kinds of writes. Content-addressed paths (objects, their gzip
/// copies, archives, manifests) never change once written, so they are put only where absent;
/// the mutable ones (a journey's history and document) are read with a validator and replaced
/// only if that validator still holds, so two publishers never lose each other's revision.
public protocol PublishTarget: Sendable {
    /// The origin as a person names it, for messages (`/srv/origin`, `s3://bucket/prefix`).
    var name: String { get }

    /// The size of the immutable file at `path`, nil when there is none.
    /// - Parameter path: relative to the origin, e.g. `objects/<hex>`.
    /// - Throws: ``PublishError`` when the origin cannot be asked.
    func size(of path: String) throws(PublishError) -> Int64?

    /// Puts the file at `source` at the immutable `path` unless something is there already;
    /// what is there must have the same size, else it is damaged and the file is put over it.
    /// - Parameters:
    ///   - path: relative to the origin.
    ///   - source: a local regular file, read where it is (a symbolic link is refused) as it
    ///     is sent (memory stays bounded).
    ///   - sha256: its digest when known (objects by their name, files checked before): what
    ///     is sent must hash to it, else nothing is stored. Without it the target computes it
    ///     if it needs it.
    ///   - content: what the file is, for its `Content-Type` and `Cache-Control`.
    /// - Returns: true when this call wrote it, false when it was there.
    /// - Throws: ``PublishError``; ``PublishError/Code/sourceMismatch`` for a source that is
    ///   not what was checked.
    func putIfAbsent(_ path: String, from source: String, sha256: Digest?, content: OriginContent) throws(PublishError) -> Bool

    /// Reads a mutable file with the validator that ``replace(_:with:content:expecting:)`` takes.
    /// - Returns: nil when there is no such file.
    func read(_ path: String, limit: Int) throws(PublishError) -> StoredFile?

    /// Writes a mutable file if it still is what was read: `expecting` is the validator
    /// ``read(_:limit:)`` gave, nil for a file that was not there.
    /// - Returns: false, changing nothing, when another publisher changed it meanwhile.
    func replace(_ path: String, with bytes: [UInt8], content: OriginContent, expecting validator: String?) throws(PublishError) -> Bool

    /// Runs `body`, which reads and replaces mutable files, with the exclusion the target
    /// offers: the local folder's lock (`OriginLock`); none for an object store, whose
    /// conditional writes do that job.
    func changingMutableFiles<T>(_ body: () throws(PublishError) -> T) throws(PublishError) -> T
}

/// A mutable file's bytes and the validator to replace it with (an S3 ETag, or a digest of
/// the bytes for a local file).
public struct StoredFile: Sendable, Equatable {
    public var bytes: [UInt8]
    public var validator: String

    public init(bytes: [UInt8], validator: String) {
        self.bytes = bytes
        self.validator = validator
    }
}

/// What an origin file is, which sets the headers it is served with: the same `Content-Type`
/// and `Cache-Control` as the reference nginx origin (Tools/origin/nginx.conf.template).
public enum OriginContent: Sendable, Equatable {
    case object, compressedObject, archive, manifest, history, document, accessMap
    /// A patch between two objects (`patches/<hex>`) and a bundle's patch index
    /// (`bundles/<hex>/patches.json`): immutable, like objects and manifests.
    case patch, patchIndex

    /// Chooses by path, for uploading an existing origin folder.
    public init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        switch (parts.first, parts.count) {
        case ("objects", 2): self = path.hasSuffix(".gz") ? .compressedObject : .object
        case ("bundles", 2) where path.hasSuffix(".tar.gz"): self = .archive
        case ("bundles", 3) where path.hasSuffix("/manifest.json"): self = .manifest
        case ("bundles", 3) where path.hasSuffix("/patches.json"): self = .patchIndex
        case ("patches", 2): self = .patch
        case ("journeys", 2) where path.hasSuffix(".history.json"): self = .history
        case ("journeys", 2) where path.hasSuffix(".json"): self = .document
        case ("access", 2) where path.hasSuffix(".map"): self = .accessMap
        default: return nil
        }
    }

    public var contentType: String {
        switch self {
        case .object, .compressedObject, .patch: "application/octet-stream"
        case .archive: "application/gzip"
        case .manifest, .history, .document, .patchIndex: "application/json"
        case .accessMap: "text/plain"
        }
    }

    /// `Content-Encoding` for the stored copy: a gzip copy is the object, compressed.
    public var contentEncoding: String? { self == .compressedObject ? "gzip" : nil }

    public var cacheControl: String {
        switch self {
        case .object, .compressedObject, .archive, .manifest, .patch, .patchIndex: "public, max-age=31536000, immutable"
        case .history, .document, .accessMap: "no-cache"
        }
    }
}
