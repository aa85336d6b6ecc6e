import Dispatch
import Foundation
import LarderFormat
import LarderSystem

/// Hashes and writes entry bytes on a second thread while the caller keeps inflating the
/// archive, so decompression and the kernel's file writes overlap (as `gzip -dc | tar -x` do).
///
/// Feed it each entry's bytes in order with ``write(_:store:bytes:first:last:)`` (a small
/// entry is one call); ``finish()`` waits for the worker and throws the first mismatch or write
/// error. Files are created, written and closed on the worker, in the staging area it was given.
///
/// `@unchecked Sendable` because the worker thread owns ``staged`` and the staging area while
/// it runs, and the caller reads them only after ``finish()``, whose semaphore orders the two;
/// everything else it shares is behind a `Locked` or a semaphore.
final class ObjectWriter: @unchecked Sendable {
    private enum Item {
        case chunk(Manifest.File, store: Bool, bytes: [UInt8], first: Bool, last: Bool)
        case finish
    }

    private let queue = Locked<[Item]>([])
    private let available = DispatchSemaphore(value: 0)
    private let room: DispatchSemaphore
    private let done = DispatchSemaphore(value: 0)
    private let failure = Locked<FormatError?>(nil)
    private let staging: StagingArea
    /// Staged files by object, written by the worker, read after ``finish()``.
    private(set) var staged: [Digest: String] = [:]

    /// - Parameters:
    ///   - staging: where new objects are written; only the worker creates files in it.
    ///   - capacity: chunks in flight, which bounds memory to `capacity` chunks.
    init(staging: StagingArea, capacity: Int = 16) {
        self.staging = staging
        room = DispatchSemaphore(value: capacity)
        Thread.detachNewThread { [self] in work() }
    }

    /// Queues part of an entry: its first chunk starts it (with `store`, its bytes go to a new
    /// staged file), its last chunk ends and checks it.
    func write(_ file: Manifest.File, store: Bool, bytes: [UInt8], first: Bool, last: Bool) {
        push(.chunk(file, store: store, bytes: bytes, first: first, last: last))
    }

    /// Whether the worker already failed, so the caller can stop early.
    var hasFailed: Bool { failure.withLock { $0 != nil } }

    /// Waits for every queued chunk and reports the first problem.
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
        var target: StagedFile?
        var size: Int64 = 0
        while true {
            available.wait()
            let item = queue.withLock { $0.removeFirst() }
            room.signal()
            guard case .chunk(let file, let store, let bytes, let first, let last) = item else {
                target = nil  // closes it
                done.signal()
                return
            }
            if first {
                size = 0
                hasher.reset()
                if store && !hasFailed {
                    do throws(CacheError) {
                        let created = try staging.createFile()
                        staged[file.digest] = created.path
                        target = consume created
                    } catch {
                        fail(FormatError(.io, error.message, entry: file.path))
                    }
                }
            }
            guard !hasFailed else { continue }
            hasher.update(bytes)
            size += Int64(bytes.count)
            do throws(FormatError) {
                try FormatError.typed { try bytes.withUnsafeBytes { (raw) throws(FormatError) in try target?.write(raw) } }
            } catch {
                fail(error)
            }
            guard last else { continue }
            if let open = target.take() {
                // Start the disk write now, overlapping the rest of the archive; the install's
                // flush is what makes it durable. Closed as it goes.
                Durability.current.startWriteback(open.descriptor)
            }
            let actual = hasher.finalize()
            if size != file.size {
                fail(FormatError(.sizeMismatch, "has \(size) bytes, the manifest says \(file.size)", entry: file.path))
            } else if actual != file.digest {
                fail(FormatError(.digestMismatch, "hashes to \(actual), the manifest says \(file.digest)", entry: file.path))
            }
        }
    }
}
