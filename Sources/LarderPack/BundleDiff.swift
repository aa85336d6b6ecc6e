import LarderFormat

/// What changes from one bundle to the next, and what it costs a device: the files added,
/// removed and changed by path, and the bytes a device holding the old bundle downloads for the
/// new one when it fetches by objects (the new manifest, then each object it lacks once,
/// compressed as it travels), in total and per role.
public struct BundleDiff: Sendable {
    /// Bytes for one group of objects.
    public struct Cost: Sendable, Equatable {
        /// Objects (distinct digests).
        public var objects: Int = 0
        /// Their bytes as stored.
        public var size: Int64 = 0
        /// Their bytes on the wire.
        public var transfer: Int64 = 0

        public init() {}

        mutating func add(size: Int64, transfer: Int64) {
            objects += 1
            self.size += size
            self.transfer += transfer
        }
    }

    public var old: Digest
    public var new: Digest
    public var files: ManifestDifference
    /// The new manifest's bytes (always downloaded).
    public var manifestSize: Int64
    /// The objects of the new bundle the old one lacks.
    public var download: Cost
    /// The same, by the role of the first file (in path order) that has each object.
    public var byRole: [FileRole: Cost]
    /// The download when the new bundle has patches from the old one
    /// (``addPatches(old:new:bytes:)``); nil until computed.
    public var withPatches: PatchedDownload?
    /// Each lacked object's wire size, as `transferSize` gave it.
    var transfers: [Digest: Int64] = [:]

    /// - Parameters:
    ///   - transferSize: the wire size of one object of the new bundle the old lacks,
    ///     given the first file that has it; asked once per object.
    ///   - old: the manifest of the bundle a device has.
    ///   - new: the manifest of the bundle it would fetch.
    /// - Throws: what `transferSize` throws.
    public init<Failure: Error>(
        old: Manifest, new: Manifest, transferSize: (Manifest.File) throws(Failure) -> Int64
    ) throws(Failure) {
        self.old = old.bundleDigest
        self.new = new.bundleDigest
        files = ManifestDifference(old: old, new: new)
        manifestSize = Int64(new.canonicalBytes.count)
        download = Cost()
        byRole = [:]
        for file in Self.lackedObjects(old: old, new: new) {
            let transfer = try transferSize(file)
            transfers[file.digest] = transfer
            download.add(size: file.size, transfer: transfer)
            byRole[file.role, default: Cost()].add(size: file.size, transfer: transfer)
        }
    }

    /// The objects of the new bundle the old one lacks: the first file of each, in path order.
    public static func lackedObjects(old: Manifest, new: Manifest) -> [Manifest.File] {
        let held = Set(old.files.map(\.digest))
        var seen = Set<Digest>()
        return new.files.filter { !held.contains($0.digest) && seen.insert($0.digest).inserted }
    }
}
