import LarderFormat
import LarderSystem

/// What an install did.
public struct InstallResult: Sendable, Equatable {
    public var bundle: Digest
    public var name: String
    /// The bundle was already there (or another install of it finished first): nothing written.
    public var alreadyPresent: Bool
    public var objectsWritten: Int
    public var bytesWritten: Int64
    /// Bundles evicted to stay under the disk budget.
    public var evicted: [Digest]
}

extension LarderCache {
    /// Installs a bundle archive from a file.
    /// - Parameters:
    ///   - expected: the digest the bundle was fetched for; its manifest must hash to it.
    ///   - path: the archive `larder pack` wrote (`<hex>.tar.gz`).
    /// - Throws: ``CacheError``: ``CacheError/Code/invalidBundle`` (with the format error as
    ///   `cause`) or ``CacheError/Code/bundleDigestMismatch``, leaving the cache unchanged.
    public func install(archiveAt path: String, expected: Digest? = nil) throws(CacheError) -> InstallResult {
        let file: ReadableFile
        do { file = try ReadableFile(path: path) } catch {
            throw CacheError(.invalidBundle, "cannot read the archive", path: path, cause: error)
        }
        do {
            return try install(expected: expected, embedded: false) { (buffer) throws(FormatError) in try file.read(into: buffer) }
        } catch {
            throw error.naming(path)
        }
    }

    /// Installs a bundle archive from a stream of its bytes, hashing every entry as it is
    /// written and checking it against the manifest. The bundle becomes visible only when its
    /// index transaction commits; installing a bundle that is there is a no-op; concurrent
    /// installs of one digest in this process share the work.
    public func install(expected: Digest? = nil, from source: @escaping ArchiveReader.Source) throws(CacheError) -> InstallResult {
        try install(expected: expected, embedded: false, from: source)
    }

    /// Imports the app's embedded default bundle: never evicted, kept on logout, and sharing
    /// objects with later installs.
    public func importEmbeddedDefault(archiveAt path: String) throws(CacheError) -> InstallResult {
        let file: ReadableFile
        do { file = try ReadableFile(path: path) } catch {
            throw CacheError(.invalidBundle, "cannot read the archive", path: path, cause: error)
        }
        do {
            return try install(expected: nil, embedded: true) { (buffer) throws(FormatError) in try file.read(into: buffer) }
        } catch {
            throw error.naming(path)
        }
    }

    func install(expected: Digest?, embedded: Bool, from source: @escaping ArchiveReader.Source) throws(CacheError) -> InstallResult {
        try requireWritable("install a bundle")
        let reader: ArchiveReader
        let verified: VerifiedManifest
        do {
            reader = try ArchiveReader(limits: configuration.limits, source: source)
            verified = try BundleVerifier.readManifest(from: reader)
        } catch {
            throw CacheError(.invalidBundle, "the archive was refused", cause: error)
        }
        if let expected, expected != verified.digest {
            throw CacheError(
                .bundleDigestMismatch, "the manifest hashes to \(verified.digest), not to the digest it was fetched for", digest: expected)
        }
        return try coalesced(verified, embedded: embedded) { () throws(CacheError) in
            try writeBundle(verified, embedded: embedded, reader: reader)
        }
    }

    /// Runs an install unless the bundle is already complete, sharing the work with an install
    /// of the same bundle already running in this process; evicts to the budget afterwards.
    func coalesced(
        _ verified: VerifiedManifest, embedded: Bool, _ work: () throws(CacheError) -> InstallResult
    ) throws(CacheError) -> InstallResult {
        let (manifest, digest) = (verified.manifest, verified.digest)
        if let existing = try bundle(digest), existing.complete, !embedded || existing.embedded {
            return InstallResult(bundle: digest, name: manifest.name, alreadyPresent: true, objectsWritten: 0, bytesWritten: 0, evicted: [])
        }
        let (waiter, isFirst) = installs.withLock { running -> (InstallWaiter, Bool) in
            if let waiter = running[digest] { return (waiter, false) }
            let waiter = InstallWaiter()
            running[digest] = waiter
            return (waiter, true)
        }
        guard isFirst else { return try waiter.wait() }
        let outcome: Result<InstallResult, CacheError>
        do throws(CacheError) {
            outcome = .success(try work())
        } catch {
            outcome = .failure(error)
        }
        installs.withLock { _ = $0.removeValue(forKey: digest) }
        waiter.finish(outcome)
        var result = try outcome.get()
        if !result.alreadyPresent { result.evicted = try evictToBudget() }
        return result
    }

    private func writeBundle(
        _ verified: VerifiedManifest, embedded: Bool, reader: ArchiveReader
    ) throws(CacheError) -> InstallResult {
        let (manifest, digest) = (verified.manifest, verified.digest)
        // Two writers, each with its own staging folder: creating files is most of an install's
        // cost, and two threads in two folders let the kernel do it in parallel.
        let session = try InstallSession(cache: self, stagingFolders: 2)
        var folders = Set<String>()
        for file in manifest.files {
            var prefix = ""
            for segment in file.path.split(separator: "/").dropLast() {
                prefix += prefix.isEmpty ? String(segment) : "/" + segment
                folders.insert(prefix)
            }
        }
        // Objects found in place are reused only once checked (a planted or damaged file is
        // quarantined and written anew from the archive).
        var sizes: [Digest: Int64] = [:]
        for file in manifest.files { sizes[file.digest] = file.size }
        let stored = try reusableObjects(sizes)
        var seen = Set<String>()
        var staged: [Digest: String] = [:]
        var bytesWritten: Int64 = 0
        let writers = session.stagings.map { ObjectWriter(staging: $0) }
        var hasFailed: Bool { writers.contains { $0.hasFailed } }
        func finishAll() throws(FormatError) {
            var first: FormatError?
            for writer in writers {
                do { try writer.finish() } catch { first = first ?? error }
            }
            if let first { throw first }
        }
        var toStore = Set<Digest>()
        var entryIndex = 0
        do throws(FormatError) {
            do throws(FormatError) {
                while let entry = try reader.next(), !hasFailed {
                    if entry.kind == .folder {
                        guard folders.contains(entry.path) else {
                            throw FormatError(.unexpectedEntry, "folder is not part of the manifest", entry: entry.path)
                        }
                        continue
                    }
                    guard let listed = manifest.file(at: entry.path) else {
                        throw FormatError(.unexpectedEntry, "file is not listed in the manifest", entry: entry.path)
                    }
                    seen.insert(entry.path)
                    // Objects already stored (or staged by this install) are still read and
                    // checked, but not written again.
                    let store = !stored.contains(listed.digest) && toStore.insert(listed.digest).inserted
                    if store { bytesWritten += listed.size }
                    let writer = writers[entryIndex % writers.count]
                    entryIndex += 1
                    // Whole entries up to 1 MiB go over as one chunk: fewer hand-offs.
                    var first = true
                    var remaining = entry.size
                    repeat {
                        var chunk = [UInt8](repeating: 0, count: Int(min(max(remaining, 0), 1 << 20)))
                        var filled = 0
                        while filled < chunk.count {
                            let count = try FormatError.typed {
                                try chunk.withUnsafeMutableBytes { try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
                            }
                            if count == 0 { break }
                            filled += count
                        }
                        chunk.removeLast(chunk.count - filled)
                        remaining -= Int64(filled)
                        let last = filled < (1 << 20) || remaining <= 0
                        writer.write(listed, store: store, bytes: chunk, first: first, last: last)
                        first = false
                        if last { break }
                    } while true
                }
                if let missing = manifest.files.first(where: { !seen.contains($0.path) }), !hasFailed {
                    throw FormatError(.missingEntry, "listed in the manifest but not in the archive", entry: missing.path)
                }
            } catch {
                // A writer's own error, if one had one, came first.
                try finishAll()
                throw error
            }
            try finishAll()
            for writer in writers { staged.merge(writer.staged) { first, _ in first } }
        } catch where error.code == .noSpace {
            throw CacheError(.diskFull, "no space left to install the bundle", digest: digest, cause: error)
        } catch {
            throw CacheError(.invalidBundle, "the archive was refused", digest: digest, cause: error)
        }
        try session.commit(verified, embedded: embedded, staged: staged)
        return InstallResult(
            bundle: digest, name: manifest.name, alreadyPresent: false, objectsWritten: staged.count, bytesWritten: bytesWritten,
            evicted: [])
    }
}
