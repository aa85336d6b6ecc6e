import Foundation
import LarderFormat
import LarderSystem

/// The origin as a local folder that a static HTTP server serves (Tools/origin): what
/// `larder publish --origin <folder>` has always written, byte for byte. Every file goes
/// through a temporary name and a rename; the mutable ones are changed holding the folder's
/// `OriginLock`, so the validator (a digest of the bytes) is only a second check.
public struct LocalFolderTarget: PublishTarget {
    public let folder: String

    public init(folder: String) { self.folder = folder }

    public var name: String { folder }

    public func size(of path: String) throws(PublishError) -> Int64? {
        do { return try FileStatus.of(folder + "/" + path).size } catch { return nil }
    }

    /// Copies `source` (read where it is: a symbolic link is refused) into place; a file of
    /// another size already there is damaged and replaced. With `sha256`, the bytes copied
    /// must hash to it, else nothing is put in place
    /// (``PublishError/Code/sourceMismatch``).
    public func putIfAbsent(_ path: String, from source: String, sha256: Digest?, content: OriginContent) throws(PublishError) -> Bool {
        if let existing = try size(of: path), existing == (try self.size(ofLocal: source)) { return false }
        let full = folder + "/" + path
        let input = try PublishError.local { () throws(FormatError) -> ReadableFile in try ReadableFile(path: source, followingLinks: false) }
        let copied = try PublishError.local { () throws(FormatError) -> (AtomicFileWriter, Digest) in
            let parent = (full as NSString).deletingLastPathComponent
            try FormatError.typed { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
            let output = try AtomicFileWriter(folder: parent, prefix: (full as NSString).lastPathComponent)
            let hasher = SHA256Hasher()
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 64)
            defer { buffer.deallocate() }
            while true {
                let count = try input.read(into: buffer)
                if count == 0 { break }
                let piece = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                hasher.update(piece)
                try output.write(piece)
            }
            return (output, hasher.finalize())
        }
        if let sha256, copied.1 != sha256 {
            throw PublishError(.sourceMismatch, "hashes to \(copied.1), not \(sha256) as checked: it changed; nothing was put in place", path: source)
        }
        try PublishError.local { () throws(FormatError) in try copied.0.commit(to: full) }
        return true
    }

    public func read(_ path: String, limit: Int) throws(PublishError) -> StoredFile? {
        let full = folder + "/" + path
        guard FileManager.default.fileExists(atPath: full) else { return nil }
        // Read where it is: a link planted in a folder being uploaded sends nothing it points at.
        let file: ReadableFile
        do { file = try ReadableFile(path: full, followingLinks: false) } catch {
            let isRegular: Bool
            do { isRegular = try FileStatus.ofLink(full).kind == .regular } catch { isRegular = true }  // gone meanwhile: the open's error says it
            throw isRegular ? PublishError(error) : PublishError(.sourceMismatch, error.message, path: full, cause: error)
        }
        let bytes = try PublishError.local { () throws(FormatError) -> [UInt8] in try file.readAll(limit: limit) }
        return StoredFile(bytes: bytes, validator: SHA256Hasher.hash(bytes).hex)
    }

    public func replace(_ path: String, with bytes: [UInt8], content: OriginContent, expecting validator: String?) throws(PublishError) -> Bool {
        guard try read(path, limit: 64 << 20)?.validator == validator else { return false }
        try PublishError.local { () throws(FormatError) in
            if content == .document { try Self.replaceDocument(bytes, at: path, in: folder) } else { try OriginPublisher.replace(bytes, at: path, in: folder) }
        }
        return true
    }

    public func changingMutableFiles<T>(_ body: () throws(PublishError) -> T) throws(PublishError) -> T {
        let lock = try PublishError.local { () throws(FormatError) -> FileLock in try OriginLock.acquire(origin: folder) }
        return try withExtendedLifetime(lock) { () throws(PublishError) -> T in try body() }
    }

    private func size(ofLocal source: String) throws(PublishError) -> Int64 {
        do { return try FileStatus.ofLink(source).size } catch {
            throw PublishError(.local, "cannot stat the file to publish: \(error)", path: source)
        }
    }

    /// Replaces a journey's document. Static servers derive ETags from mtime (in seconds) and
    /// size; a new revision of the same size in the same second must still get a new ETag.
    static func replaceDocument(_ bytes: [UInt8], at path: String, in origin: String) throws(FormatError) {
        let full = origin + "/" + path
        let before = (try? FileManager.default.attributesOfItem(atPath: full)[.modificationDate] as? Date) ?? nil
        try OriginPublisher.replace(bytes, at: path, in: origin)
        if let before {
            let floor = Date(timeIntervalSince1970: before.timeIntervalSince1970.rounded(.down) + 1)
            let after = (try? FileManager.default.attributesOfItem(atPath: full)[.modificationDate] as? Date) ?? nil
            if let after, after < floor {
                try FormatError.typed { try FileManager.default.setAttributes([.modificationDate: floor], ofItemAtPath: full) }
            }
        }
    }
}
