import Dispatch
import Foundation
import LarderFormat
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Hashes and writes entry bytes on a second thread while the caller keeps inflating the
/// archive, so decompression and the kernel's file writes overlap (as `gzip -dc | tar -x` do).
///
/// Feed it ``begin(_:store:)``, ``write(_:)`` and ``end()`` for each entry, in order;
/// ``finish()`` waits for the worker and throws the first mismatch or write error. Files are
/// created, written and closed on the worker, in the staging area it was given.
final class ObjectWriter: @unchecked Sendable {
    typealias Target = (descriptor: Int32, path: String)

    private enum Item {
        case begin(Manifest.File, store: Bool)
        case data([UInt8])
        case end
        case finish
    }

    private let queue = Mutex<[Item]>([])
    private let available = DispatchSemaphore(value: 0)
    private let room: DispatchSemaphore
    private let done = DispatchSemaphore(value: 0)
    private let failure = Mutex<FormatError?>(nil)
    private let staging: StagingArea
    /// Staged files by object, written by the worker, read after ``finish()``.
    private(set) var staged: [Digest: String] = [:]

    /// - Parameters:
    ///   - staging: where new objects are written; only the worker creates files in it.
    ///   - capacity: items in flight, which bounds memory to about `capacity` chunks.
    init(staging: StagingArea, capacity: Int = 32) {
        self.staging = staging
        room = DispatchSemaphore(value: capacity)
        Thread.detachNewThread { [self] in work() }
    }

    /// Starts an entry; with `store`, its bytes are written to a new staged file.
    func begin(_ file: Manifest.File, store: Bool) { push(.begin(file, store: store)) }
    func write(_ chunk: [UInt8]) { push(.data(chunk)) }
    func end() { push(.end) }

    /// Whether the worker already failed, so the caller can stop early.
    var hasFailed: Bool { failure.withLock { $0 != nil } }

    /// Waits for every queued item and reports the first problem.
    func finish() throws(FormatError) {
        push(.finish)
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    private func push(_ item: Item) {
        room.wait()
        queue.withLock { $0.append(item) }
        available.signal()
    }

    private func fail(_ error: FormatError) {
        failure.withLock { $0 = $0 ?? error }
    }

    private func work() {
        let hasher = SHA256Hasher()
        var current: Manifest.File?
        var target: Target?
        var size: Int64 = 0
        while true {
            available.wait()
            let item = queue.withLock { $0.removeFirst() }
            room.signal()
            switch item {
            case .finish:
                if let target { close(target.descriptor) }
                done.signal()
                return
            case .begin(let file, let store):
                current = file
                size = 0
                hasher.reset()
                guard store, !hasFailed else { continue }
                do throws(CacheError) {
                    target = try staging.createFile()
                    staged[file.digest] = target?.path
                } catch {
                    fail(FormatError(.io, error.message, entry: file.path))
                }
            case .data(let chunk):
                guard !hasFailed else { continue }
                hasher.update(chunk)
                size += Int64(chunk.count)
                if let target {
                    do throws(FormatError) {
                        try FormatError.typed { try chunk.withUnsafeBytes { try LarderCache.writeAll($0, to: target.descriptor, path: target.path) } }
                    } catch {
                        fail(error)
                    }
                }
            case .end:
                if let open = target { close(open.descriptor) }
                target = nil
                guard let file = current, !hasFailed else { continue }
                let actual = hasher.finalize()
                if size != file.size {
                    fail(FormatError(.sizeMismatch, "has \(size) bytes, the manifest says \(file.size)", entry: file.path))
                } else if actual != file.digest {
                    fail(FormatError(.digestMismatch, "hashes to \(actual), the manifest says \(file.digest)", entry: file.path))
                }
                current = nil
            }
        }
    }
}
