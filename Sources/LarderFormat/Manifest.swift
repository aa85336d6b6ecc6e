/// The description of one bundle: every file with its digest, size, media type and role, and
/// what the renderer needs to know to start it.
///
/// Its canonical bytes (``canonicalBytes``) are hashed to give the bundle's identity
/// (``bundleDigest``). Because every file digest is inside, that one digest names the whole
/// bundle.
public struct Manifest: Sendable, Equatable {
    /// The manifest format this version writes and reads.
    public static let formatVersion = 1
    /// The archive entry name of the manifest; always the first entry.
    public static let entryName = "manifest.json"
    /// The largest manifest accepted, in bytes, whether it comes in an archive or over HTTP.
    public static let maximumBytes = 16 << 20
    /// The most files a manifest may list: as many as an archive may hold entries
    /// (``ArchiveReader/Limits/maximumEntries`` by default).
    public static let maximumFiles = 100_000
    /// The most bytes a manifest's files may declare in all (1 TiB): far past what an archive
    /// reader accepts by default (``ArchiveReader/Limits/maximumTotalBytes``), and small enough
    /// that no sum of sizes over a manifest, or over the bundles of a cache, can overflow.
    public static let maximumTotalBytes: Int64 = 1 << 40

    /// What a renderer advertises it can do.
    public enum Capability: String, Sendable, CaseIterable, Comparable {
        /// It can be initialised hidden and report when the first screen is ready.
        case prepare
        /// It is told when it becomes visible and hidden.
        case visibility
        /// It waits for the page to declare its first screen drawn (the page runtime's
        /// `larder.ready()`), within its deadline, before it reports the page ready.
        case ready

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The renderer protocol version and capabilities this bundle was built for.
    public struct Renderer: Sendable, Equatable {
        public var protocolVersion: Int
        public var capabilities: Set<Capability>

        public init(protocolVersion: Int = 1, capabilities: Set<Capability> = [.prepare, .visibility]) {
            self.protocolVersion = protocolVersion
            self.capabilities = capabilities
        }
    }

    /// One file of the bundle.
    public struct File: Sendable, Equatable {
        /// The path inside the bundle (see ``BundlePath``).
        public var path: String
        public var digest: Digest
        public var size: Int64
        public var mediaType: String
        public var role: FileRole
        /// Whether the first screen needs it.
        public var essential: Bool

        public init(path: String, digest: Digest, size: Int64, mediaType: String, role: FileRole, essential: Bool) {
            self.path = path
            self.digest = digest
            self.size = size
            self.mediaType = mediaType
            self.role = role
            self.essential = essential
        }
    }

    public var name: String
    /// The path of the entry document.
    public var entry: String
    public var renderer: Renderer
    /// The files, sorted by the UTF-8 bytes of their paths.
    public private(set) var files: [File]

    /// Creates a manifest; files are sorted into canonical order.
    /// - Throws: ``FormatError`` if a path is unsafe or repeated, or the entry is not a file.
    public init(name: String, entry: String, renderer: Renderer, files: [File]) throws(FormatError) {
        self.name = name
        self.entry = entry
        self.renderer = renderer
        self.files = files.sorted { BundlePath.precedes($0.path, $1.path) }
        try validate()
    }

    /// Looks up a file by path.
    /// - Complexity: O(log n).
    public func file(at path: String) -> File? {
        var low = 0
        var high = files.count
        while low < high {
            let mid = (low + high) / 2
            if files[mid].path == path { return files[mid] }
            if BundlePath.precedes(files[mid].path, path) { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    /// The total size of all files in bytes (at most ``maximumTotalBytes``).
    public var totalSize: Int64 { files.reduce(0) { $0 + $1.size } }

    func validate() throws(FormatError) {
        guard !name.isEmpty, name.utf8.count <= 200 else {
            throw FormatError(.invalidManifest, "the bundle name must be 1 to 200 bytes", field: "name")
        }
        guard files.count <= Self.maximumFiles else {
            throw FormatError(.limitExceeded, "\(files.count) files; a bundle holds at most \(Self.maximumFiles)", field: "files")
        }
        var total: Int64 = 0
        for (index, file) in files.enumerated() {
            do { try BundlePath.validate(file.path) } catch {
                throw FormatError(.invalidManifest, error.message, entry: file.path, field: "files[\(index)].path")
            }
            if file.path == Self.entryName {
                throw FormatError(
                    .invalidManifest, "'\(Self.entryName)' is reserved for the manifest itself",
                    entry: file.path, field: "files[\(index)].path")
            }
            if index > 0 && files[index - 1].path == file.path {
                throw FormatError(
                    .invalidManifest, "duplicate path '\(file.path)'", entry: file.path, field: "files[\(index)].path")
            }
            if file.size < 0 {
                throw FormatError(.invalidManifest, "size must not be negative", entry: file.path, field: "files[\(index)].size")
            }
            // Each size is checked before it is added, so the sum cannot overflow.
            guard file.size <= Self.maximumTotalBytes - total else {
                throw FormatError(
                    .limitExceeded, "the files declare more than \(Self.maximumTotalBytes) bytes in all", entry: file.path,
                    field: "files[\(index)].size")
            }
            total += file.size
        }
        guard let entryFile = file(at: entry) else {
            throw FormatError(.invalidManifest, "entry document '\(entry)' is not one of the files", field: "entry")
        }
        guard entryFile.role == .document else {
            throw FormatError(.invalidManifest, "entry '\(entry)' is not an HTML document", field: "entry")
        }
    }
}
