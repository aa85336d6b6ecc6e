import Foundation
import LarderFormat

/// The origin as a local folder that a static HTTP server serves (Tools/origin): what
/// `larder publish --origin <folder>` has always written, byte for byte. Every file goes
/// through a temporary name and a rename; the mutable ones are changed holding the folder's
/// ``OriginLock``, so the validator (a digest of the bytes) is only a second check.
public struct LocalFolderTarget: PublishTarget {
    public let folder: String

    public init(folder: String) { self.folder = folder }

    public var name: String { folder }

    public func size(of path: String) throws(PublishError) -> Int64? {
        var status = stat()
        guard stat(folder + "/" + path, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }

    public func putIfAbsent(_ path: String, from source: String, sha256: Digest?, content: OriginContent) throws(PublishError) -> Bool {
        if let existing = try size(of: path) {
            let expected = try self.size(ofLocal: source)
            guard existing == expected else {
                throw PublishError(.damaged, "is \(existing) bytes where \(expected) were published; remove it and publish again", path: folder + "/" + path)
            }
            return false
        }
        try PublishError.local { () throws(FormatError) in
            let full = folder + "/" + path
            let parent = (full as NSString).deletingLastPathComponent
            try FormatError.typed { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
            let input = try ReadableFile(path: source)
            let output = try AtomicFileWriter(folder: parent, prefix: (full as NSString).lastPathComponent)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 64)
            defer { buffer.deallocate() }
            while true {
                let count = try input.read(into: buffer)
                if count == 0 { break }
                try output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
            try output.commit(to: full)
        }
        return true
    }

    public func read(_ path: String, limit: Int) throws(PublishError) -> StoredFile? {
        let full = folder + "/" + path
        guard FileManager.default.fileExists(atPath: full) else { return nil }
        let bytes = try PublishError.local { () throws(FormatError) -> [UInt8] in try ReadableFile(path: full).readAll(limit: limit) }
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
        let lock = try PublishError.local { () throws(FormatError) -> OriginLock in try OriginLock(origin: folder) }
        return try withExtendedLifetime(lock) { () throws(PublishError) -> T in try body() }
    }

    private func size(ofLocal source: String) throws(PublishError) -> Int64 {
        var status = stat()
        guard stat(source, &status) == 0 else { throw PublishError(.local, "cannot stat the file to publish", path: source) }
        return Int64(status.st_size)
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
