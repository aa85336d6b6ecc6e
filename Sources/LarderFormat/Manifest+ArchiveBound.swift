extension Manifest {
    /// The most bytes this bundle's archive can have, whoever wrote it with the deterministic
    /// format (``TarWriter`` through ``GzipMemberWriter``, or ``ParallelGzipWriter`` for
    /// archives written before issue 14): what a download of the archive may receive, so a
    /// server that claims or sends more is refused before the disk fills.
    ///
    /// The tar part counts, for the manifest, every file and every folder, a header block, a
    /// pax extended header with its path record, and the data padded to 512-byte blocks, then
    /// the end-of-archive blocks padded to a 10 KiB record (archives before issue 14; since
    /// then to 512 bytes). Deflate can expand incompressible
    /// data by a small fraction plus a few bytes per block; the bound allows 1/1024 and 64 bytes
    /// per 128 KiB block, beyond zlib's own `deflateBound`, and the gzip header and trailer
    /// (each 1 MiB gzip member's 18 bytes fit in the 512 a MiB is allowed).
    /// - Parameter manifestBytes: the size of the manifest entry (its canonical bytes).
    /// - Complexity: O(n) in the number of files.
    public func archiveSizeBound(manifestBytes: Int) -> Int64 {
        func padded(_ size: Int64) -> Int64 { (size + 511) / 512 * 512 }
        func entry(path: Int, size: Int64) -> Int64 { 512 + 512 + padded(Int64(path) + 64) + padded(size) }
        var tar = entry(path: Self.entryName.utf8.count, size: Int64(manifestBytes))
        var folders = Set<Substring>()
        for file in files {
            tar += entry(path: file.path.utf8.count, size: file.size)
            var path = Substring(file.path)
            while let slash = path.lastIndex(of: "/") {
                path = path[..<slash]
                guard folders.insert(path).inserted else { break }
                tar += entry(path: path.utf8.count + 1, size: 0)
            }
        }
        tar = (tar + 1024 + 10239) / 10240 * 10240
        let blocks = tar / (128 << 10) + 1
        return tar + tar / 1024 + blocks * 64 + 4096
    }
}
