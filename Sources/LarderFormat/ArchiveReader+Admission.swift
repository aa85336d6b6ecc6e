extension ArchiveReader.Limits {
    /// Checks, before an archive is written, that a reader with these limits accepts the
    /// archive of this manifest: the manifest within ``Manifest/maximumBytes``, the entries
    /// (the manifest, every file and every folder the files are in, as ``TarWriter`` writes
    /// them) within ``maximumEntries``, and the bytes of the manifest and all files within
    /// ``maximumTotalBytes``. The compression ratio is checked while writing
    /// (``admitsRatio(uncompressed:compressed:)``, by ``GzipMemberWriter``); every other rule
    /// (paths, the name, the number of files) is one ``Manifest`` keeps when it is made.
    /// - Parameter verified: the manifest the archive will hold, with its canonical bytes.
    /// - Throws: ``FormatError`` with ``FormatError/Code/limitExceeded`` naming the limit.
    /// - Complexity: O(n) in the number of files.
    public func admit(_ verified: VerifiedManifest) throws(FormatError) {
        try admit(verified.manifest, manifestSize: verified.bytes.count)
    }

    /// ``admit(_:)`` for a manifest whose canonical encoding has `manifestSize` bytes.
    package func admit(_ manifest: Manifest, manifestSize: Int) throws(FormatError) {
        guard manifestSize <= Manifest.maximumBytes else {
            throw FormatError(
                .limitExceeded,
                "the manifest would have \(manifestSize) bytes and readers accept at most \(Manifest.maximumBytes) "
                    + "(16 MiB): pack fewer files or shorter paths, or split the bundle",
                entry: Manifest.entryName)
        }
        var folders = Set<Substring>()
        for file in manifest.files {
            var path = Substring(file.path)
            while let slash = path.lastIndex(of: "/") {
                path = path[..<slash]
                guard folders.insert(path).inserted else { break }
            }
        }
        let entries = 1 + manifest.files.count + folders.count
        guard entries <= maximumEntries else {
            throw FormatError(
                .limitExceeded,
                "the archive would hold \(entries) entries (the manifest, \(manifest.files.count) files and "
                    + "\(folders.count) folders) and readers accept at most \(maximumEntries): split the bundle")
        }
        let bytes = Int64(manifestSize) + manifest.totalSize
        guard bytes <= maximumTotalBytes else {
            throw FormatError(
                .limitExceeded,
                "the archive would hold \(bytes) uncompressed bytes and readers accept at most \(maximumTotalBytes): split the bundle")
        }
    }

    /// Whether a reader that has read `compressed` bytes of an archive accepts `uncompressed`
    /// bytes out of them: at most ``ratioFloor`` bytes, or at most ``maximumRatio`` times
    /// `compressed`. The rule ``ArchiveReader`` applies to every read, and
    /// ``GzipMemberWriter`` to every member it writes.
    public func admitsRatio(uncompressed: Int64, compressed: Int64) -> Bool {
        uncompressed <= ratioFloor || uncompressed <= maximumRatio * max(1, compressed)
    }
}
