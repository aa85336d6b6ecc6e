import Foundation
import LarderFormat
import LarderSystem

/// The right to download one bundle into a cache, held by one claimant at a time across every
/// process sharing the cache (an exclusive `flock` on `downloads/<hex>.lock`, which the kernel
/// releases if the process dies), and where that download keeps its partial files.
///
/// Partial files outlive the claim so that the next claimant (a later fetch, the next launch,
/// another process once this one died) resumes from them; no two writers ever share one.
public final class DownloadClaim: Sendable {
    public let bundle: Digest
    /// The archive being downloaded, appended to as bytes arrive.
    public let archivePath: String
    /// The validator (`ETag`) of the archive's first response, for `If-Range`.
    public var archiveValidatorPath: String { archivePath + ".etag" }
    /// Objects downloaded one by one: `<hex>` once verified, `<hex>.part` while arriving.
    public let objectsFolder: String
    private let lockPath: String
    private let lock: Locked<FileLock?>

    init(bundle: Digest, layout: CacheLayout, lock: FileLock) {
        self.bundle = bundle
        lockPath = layout.downloads + "/" + bundle.hex + ".lock"
        archivePath = layout.downloads + "/" + bundle.hex + ".tar.gz.part"
        objectsFolder = layout.downloads + "/" + bundle.hex + ".objects"
        self.lock = Locked(lock)
    }

    /// Removes this bundle's partial files: after its install, or when they cannot help a
    /// later attempt (the disk is full, the bytes were wrong).
    /// - Throws: ``CacheError`` when a file cannot be removed.
    public func discardPartialFiles() throws(CacheError) {
        try Self.removePartialFiles(archivePath: archivePath, objectsFolder: objectsFolder)
    }

    /// Lets another claimant have the bundle (also when the claim is released from memory).
    public func release() { lock.withLock { $0 = nil } }

    /// Ends the download for good (the bundle is installed): removes its partial files and its
    /// lock file, then releases the claim. A claimant that opened the old lock file notices
    /// it was replaced and takes the new one.
    /// - Throws: ``CacheError`` when a file cannot be removed (the claim is released anyway).
    public func retire() throws(CacheError) {
        defer { release() }
        try discardPartialFiles()
        do { try File.remove(lockPath) } catch { throw CacheError.fileSystem("cannot remove a download lock", error, path: lockPath) }
    }

    static func removePartialFiles(archivePath: String, objectsFolder: String) throws(CacheError) {
        for path in [archivePath, archivePath + ".etag"] + Folder.names(objectsFolder).map({ objectsFolder + "/" + $0 }) {
            do { try File.remove(path) } catch { throw CacheError.fileSystem("cannot remove a partial download", error, path: path) }
        }
        do { try Folder.remove(objectsFolder) } catch {
            throw CacheError.fileSystem("cannot remove a partial download", error, path: objectsFolder)
        }
    }
}

extension LarderCache {
    /// Claims the download of `bundle` into this cache.
    /// - Returns: nil when another claimant (another process, or another fetch in this one)
    ///   holds it; try again later, and check whether it installed the bundle meanwhile.
    /// - Throws: ``CacheError`` when the downloads folder or the lock file cannot be made;
    ///   ``CacheError/Code/readOnly`` in a read-only cache.
    public func claimDownload(_ bundle: Digest) throws(CacheError) -> DownloadClaim? {
        try requireWritable("download into it")
        do { try Folder.create(layout.downloads) } catch {
            throw CacheError.fileSystem("cannot create the downloads folder", error, path: layout.downloads)
        }
        guard let lock = try Self.lockDownload(layout.downloads + "/" + bundle.hex + ".lock") else { return nil }
        return DownloadClaim(bundle: bundle, layout: layout, lock: lock)
    }

    /// Takes the lock file at `path` without waiting. A sweeper may unlink a lock file it
    /// holds, so a lock taken on a file that is no longer at `path` is dropped and taken again.
    static func lockDownload(_ path: String) throws(CacheError) -> FileLock? {
        for _ in 0..<8 {
            let file: FileDescriptor
            do { file = try FileDescriptor(opening: path, [.readWrite, .create, .noFollow]) } catch {
                throw CacheError.fileSystem("cannot open a download lock", error, path: path)
            }
            let held: FileStatus
            do { held = try file.status() } catch { throw CacheError.fileSystem("cannot inspect a download lock", error, path: path) }
            let taken: FileLock?
            do { taken = try FileLock.acquire(on: file, .exclusive, wait: false) } catch {
                throw CacheError(.storage, "cannot lock: \(error)", path: path)
            }
            guard let lock = taken else { return nil }
            if let current = try? FileStatus.of(path), current.inode == held.inode && current.device == held.device { return lock }
        }
        throw CacheError(.storage, "the download lock keeps being replaced", path: path)
    }

    /// Removes partial downloads nobody is working on: all of them (`everything`, for purge
    /// and logout), or those of bundles now complete in the cache and those untouched for
    /// `staleAfter` seconds. Downloads claimed by a live process stay.
    /// - Returns: the bytes removed.
    @discardableResult
    func removeDownloads(everything: Bool, staleAfter: TimeInterval = 7 * 86_400) throws(CacheError) -> Int64 {
        var freed: Int64 = 0
        let now = Date().timeIntervalSince1970
        for name in Folder.names(layout.downloads) where name.hasSuffix(".lock") {
            let hex = String(name.dropLast(5))
            let bundle: Digest
            do { bundle = try Digest(hex: hex) } catch { continue }  // not a lock of ours: leave it
            let lockPath = layout.downloads + "/" + name
            guard let lock = try Self.lockDownload(lockPath) else { continue }
            let claim = DownloadClaim(bundle: bundle, layout: layout, lock: lock)
            var touched: Double?
            for path in [claim.archivePath, claim.objectsFolder] {
                if let status = try? FileStatus.of(path) { touched = max(touched ?? 0, Double(status.modified)) }
            }
            let complete = try self.bundle(bundle)?.complete == true
            guard everything || complete || touched.map({ now - $0 > staleAfter }) ?? true else { continue }
            freed += Self.diskUsage(of: [claim.archivePath, claim.archiveValidatorPath])
                + Self.diskUsage(of: Folder.names(claim.objectsFolder).map { claim.objectsFolder + "/" + $0 })
            try claim.retire()
        }
        return freed
    }

    private static func diskUsage(of paths: [String]) -> Int64 {
        paths.reduce(0) { total, path in total + ((try? FileStatus.ofLink(path).size) ?? 0) }
    }
}
