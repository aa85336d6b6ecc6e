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
    private let layout: CacheLayout
    private let lock: Locked<FileLock?>

    init(bundle: Digest, layout: CacheLayout, lock: FileLock) {
        self.bundle = bundle
        self.layout = layout
        lockPath = layout.downloads + "/" + Self.lockName(bundle)
        archivePath = layout.downloads + "/" + Self.archiveName(bundle)
        objectsFolder = layout.downloads + "/" + Self.objectsName(bundle)
        self.lock = Locked(lock)
    }

    static func lockName(_ bundle: Digest) -> String { bundle.hex + ".lock" }
    static func archiveName(_ bundle: Digest) -> String { bundle.hex + ".tar.gz.part" }
    static func objectsName(_ bundle: Digest) -> String { bundle.hex + ".objects" }

    /// Removes this bundle's partial files: after its install, or when they cannot help a
    /// later attempt (the disk is full, the bytes were wrong).
    /// - Throws: ``CacheError`` when a file cannot be removed.
    public func discardPartialFiles() throws(CacheError) {
        guard let downloads = try layout.open(.downloads) else { return }
        try Self.removePartialFiles(of: bundle, in: downloads)
    }

    /// Makes ``objectsFolder`` (unless it exists) and checks it is a folder, not a symbolic
    /// link to one elsewhere, before a download writes in it.
    /// - Throws: ``CacheError/Code/foreignEntry`` when something else is there.
    public func createObjectsFolder() throws(CacheError) {
        guard let downloads = try layout.open(.downloads) else {
            throw CacheError(.storage, "the downloads folder is missing; open the cache again to make it", path: layout.downloads)
        }
        let name = Self.objectsName(bundle)
        do { try downloads.createFolder(name) } catch {
            throw CacheError.fileSystem("cannot create a download folder", error, path: objectsFolder)
        }
        do { _ = try downloads.folder(name) } catch {
            throw CacheLayout.openingFailure(error, path: objectsFolder, what: "a partial download")
        }
    }

    /// Lets another claimant have the bundle (also when the claim is released from memory).
    public func release() { lock.withLock { $0 = nil } }

    /// Ends the download for good (the bundle is installed): removes its partial files and its
    /// lock file, then releases the claim. A claimant that opened the old lock file notices
    /// it was replaced and takes the new one.
    /// - Throws: ``CacheError`` when a file cannot be removed (the claim is released anyway).
    public func retire() throws(CacheError) {
        defer { release() }
        guard let downloads = try layout.open(.downloads) else { return }
        try Self.removePartialFiles(of: bundle, in: downloads)
        do { try downloads.removeFile(Self.lockName(bundle)) } catch {
            throw CacheError.fileSystem("cannot remove a download lock", error, path: lockPath)
        }
    }

    /// Removes a bundle's partial files through the opened `downloads/` (a link there goes,
    /// not what it points at).
    static func removePartialFiles(of bundle: Digest, in downloads: borrowing OpenFolder) throws(CacheError) {
        for name in [archiveName(bundle), archiveName(bundle) + ".etag", objectsName(bundle)] {
            do { try downloads.removeEntry(name) } catch { throw CacheError.removal(error, "cannot remove a partial download") }
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
        if try !layout.exists(.downloads) {
            do { try Folder.create(layout.downloads) } catch {
                throw CacheError.fileSystem("cannot create the downloads folder", error, path: layout.downloads)
            }
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
        guard let downloads = try layout.open(.downloads) else { return 0 }
        let entries: [Folder.Entry]
        do { entries = try downloads.entries() } catch {
            throw CacheError.fileSystem("cannot list the downloads folder", error, path: downloads.path)
        }
        for name in entries.map(\.name) where name.hasSuffix(".lock") {
            let hex = String(name.dropLast(5))
            let bundle: Digest
            do { bundle = try Digest(hex: hex) } catch { continue }  // not a lock of ours: leave it
            let lockPath = layout.downloads + "/" + name
            guard let lock = try Self.lockDownload(lockPath) else { continue }
            let claim = DownloadClaim(bundle: bundle, layout: layout, lock: lock)
            var touched: Double?
            for name in [DownloadClaim.archiveName(bundle), DownloadClaim.objectsName(bundle)] {
                if let status = try? downloads.status(of: name) { touched = max(touched ?? 0, Double(status.modified)) }
            }
            let complete = try self.bundle(bundle)?.complete == true
            guard everything || complete || touched.map({ now - $0 > staleAfter }) ?? true else { continue }
            freed += Self.diskUsage(of: [DownloadClaim.archiveName(bundle), DownloadClaim.archiveName(bundle) + ".etag"], in: downloads)
            if let objects = try? downloads.folder(DownloadClaim.objectsName(bundle)), let entries = try? objects.entries() {
                freed += Self.diskUsage(of: entries.map(\.name), in: objects)
            }
            try claim.retire()
        }
        return freed
    }

    /// The sizes of the files `names` in `folder` (a link's own size; what is gone counts 0).
    private static func diskUsage(of names: [String], in folder: borrowing OpenFolder) -> Int64 {
        names.reduce(0) { total, name in total + ((try? folder.status(of: name))?.size ?? 0) }
    }
}
