import Foundation
import LarderSQLite
import LarderSystem
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Only a regular file is opened as a database: a FIFO or a symbolic link planted in its place
/// is refused with ``SQLiteError/Code/foreignFile``, at once (opening a FIFO to read blocks
/// until a writer comes), and left as it was.
@Suite struct OpeningTests {
    enum Mode: CaseIterable { case readWrite, readingOnly }

    static func open(_ path: String, _ mode: Mode) throws(SQLiteError) {
        switch mode {
        case .readWrite: _ = try SQLiteDatabase<SQLiteError>(path: path)
        case .readingOnly: _ = try SQLiteDatabase<SQLiteError>(readingOnly: path)
        }
    }

    /// Opens `path` on another thread and waits at most five seconds; a FIFO's reader still
    /// blocked then is let go by opening the FIFO's other end.
    static func openWithinBoundedTime(_ path: String, _ mode: Mode) -> SQLiteError? {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<SQLiteError?>(nil)
        Thread.detachNewThread {
            do throws(SQLiteError) { try open(path, mode) } catch { outcome.withLock { $0 = error } }
            done.signal()
        }
        if done.wait(timeout: .now() + 5) == .timedOut {
            Issue.record("opening \(path) did not return within five seconds")
            let writer = Foundation.open(path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            done.wait()
        }
        return outcome.withLock { $0 }
    }

    @Test(arguments: Mode.allCases) func aFIFOInPlaceOfTheDatabaseIsRefusedAtOnce(mode: Mode) throws {
        let folder = try TemporaryFolder.make("fifo")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/db.sqlite"
        #expect(mkfifo(path, 0o600) == 0)
        let error = try #require(Self.openWithinBoundedTime(path, mode))
        #expect(error.code == .foreignFile)
        #expect(error.path == path)
        #expect(error.message.contains("a FIFO"))
    }

    @Test(arguments: Mode.allCases) func aSymbolicLinkInPlaceOfTheDatabaseIsRefused(mode: Mode) throws {
        let folder = try TemporaryFolder.make("link")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try SQLiteDatabase<SQLiteError>(path: folder + "/real.sqlite")
        try FileManager.default.createSymbolicLink(atPath: folder + "/db.sqlite", withDestinationPath: folder + "/real.sqlite")
        let error = try #require(Self.openWithinBoundedTime(folder + "/db.sqlite", mode))
        #expect(error.code == .foreignFile)
        #expect(error.message.contains("a symbolic link"))
    }

    @Test func aMissingFileIsCreatedAndAnExistingOneOpened() throws {
        let folder = try TemporaryFolder.make("regular")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/db.sqlite"
        try SQLiteDatabase<SQLiteError>(path: path).execute("CREATE TABLE t(x)")
        let again = try SQLiteDatabase<SQLiteError>(readingOnly: path)
        #expect(try again.prepare("SELECT COUNT(*) FROM t").step())
    }
}
