import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches a folder and every folder under it with inotify (a file written, created, deleted,
/// moved; a folder made is watched from then on), and calls `changed` once per burst of events
/// (events read together, then 30 ms of quiet).
final class FolderWatch: Sendable {
    private let descriptor: Int32

    /// - Throws: ``PreviewError`` when inotify is not available or the folder cannot be watched.
    init(_ root: String, changed: @escaping @Sendable () -> Void) throws(PreviewError) {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { throw PreviewError("cannot watch \(root): inotify: \(String(cString: strerror(errno)))") }
        self.descriptor = descriptor
        var folders: [Int32: String] = [:]
        try Self.watchTree(root, descriptor: descriptor, into: &folders)
        let watched = folders
        Thread.detachNewThread { Self.run(descriptor, folders: watched, changed: changed) }
    }

    static let mask = UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF)

    /// Watches `folder` and the folders under it (at most 10,000).
    private static func watchTree(_ folder: String, descriptor: Int32, into folders: inout [Int32: String]) throws(PreviewError) {
        var pending = [folder]
        while let next = pending.popLast(), folders.count < 10_000 {
            let watch = inotify_add_watch(descriptor, next, mask)
            guard watch >= 0 else {
                if next == folder { throw PreviewError("cannot watch \(folder): \(String(cString: strerror(errno)))") }
                continue
            }
            folders[watch] = next
            let children = (try? FileManager.default.contentsOfDirectory(atPath: next)) ?? []
            for child in children where !child.hasPrefix(".") {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: next + "/" + child, isDirectory: &isFolder), isFolder.boolValue {
                    pending.append(next + "/" + child)
                }
            }
        }
    }

    private static func run(_ descriptor: Int32, folders initial: [Int32: String], changed: @Sendable () -> Void) {
        var folders = initial
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            // New folders are watched too.
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (event, name) = buffer.withUnsafeBytes { raw -> (inotify_event, String) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let bytes = raw[start..<min(start + Int(event.len), raw.count)].prefix { $0 != 0 }
                    return (event, String(decoding: bytes, as: UTF8.self))
                }
                if event.mask & UInt32(IN_ISDIR) != 0, event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, let parent = folders[event.wd] {
                    do throws(PreviewError) { try watchTree(parent + "/" + name, descriptor: descriptor, into: &folders) } catch {}
                }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
            // A burst (an editor's save is several events): wait for 30 ms of quiet.
            var quiet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            for _ in 0..<100 {
                guard poll(&quiet, 1, 30) > 0 else { break }
                let drained = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if drained <= 0 { break }
            }
            changed()
        }
    }
}
