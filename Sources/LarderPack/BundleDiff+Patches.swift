import LarderFormat

extension BundleDiff {
    /// What a device holding the old bundle moves for the new one when the origin has the
    /// patches `larder publish` writes for this pair (Docs/Patches.md): the manifest, the patch
    /// index, a patch for each changed object whose patch pays, and the other objects whole.
    public struct PatchedDownload: Sendable, Equatable {
        /// Objects made from patches: `size` their bytes as stored, `transfer` the patches' bytes.
        public var patched = Cost()
        /// Objects still fetched whole, as they travel.
        public var whole = Cost()
        /// The patch index's bytes; 0 when no patch pays (no index is published then).
        public var indexSize: Int64 = 0

        public init() {}
    }

    /// All the bytes the download with patches moves, the manifest included.
    public func total(_ patched: PatchedDownload) -> Int64 { manifestSize + patched.indexSize + patched.patched.transfer + patched.whole.transfer }

    /// Computes ``withPatches``: for each lacked object whose path the old bundle has with other
    /// bytes, the patch publish would write (`ZstdPatch`, kept by
    /// `PatchPolicy.keeps(patchSize:entrySize:objectTravel:)` (LarderFormat) against the object's wire size).
    /// - Parameters:
    ///   - old: the manifest of the bundle a device has.
    ///   - new: the manifest of the bundle it would fetch.
    ///   - bytes: a file's verified bytes, of either bundle.
    /// - Throws: what `bytes` throws.
    public mutating func addPatches<Failure: Error>(
        old: Manifest, new: Manifest, bytes: (Manifest.File) throws(Failure) -> [UInt8]
    ) throws(Failure) {
        var result = PatchedDownload()
        var entries: [PatchIndex.Entry] = []
        for file in Self.lackedObjects(old: old, new: new) {
            let transfer = transfers[file.digest] ?? file.size
            guard let base = old.file(at: file.path), base.digest != file.digest, file.size <= PatchPolicy.limits.maximumOutputBytes,
                base.size <= PatchPolicy.limits.maximumOutputBytes
            else {
                result.whole.add(size: file.size, transfer: transfer)
                continue
            }
            let (from, to) = (try bytes(base), try bytes(file))
            let patch: [UInt8]
            do { patch = try ZstdPatch.make(from: from, to: to, limits: PatchPolicy.limits) } catch {
                result.whole.add(size: file.size, transfer: transfer)  // past the window bound: publish writes none either
                continue
            }
            let entry = PatchIndex.Entry(from: base.digest, fromSize: base.size, to: file.digest, patch: SHA256Hasher.hash(patch), size: Int64(patch.count))
            guard PatchPolicy.keeps(patchSize: patch.count, entrySize: entry.encodedSize, objectTravel: transfer) else {
                result.whole.add(size: file.size, transfer: transfer)
                continue
            }
            result.patched.add(size: file.size, transfer: Int64(patch.count))
            entries.append(entry)
        }
        if !entries.isEmpty { result.indexSize = Int64(PatchIndex(entries: entries).bytes.count) }
        withPatches = result
    }
}
