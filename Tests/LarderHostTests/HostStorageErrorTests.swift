import Foundation
import LarderCache
@testable import LarderHost
import LarderSQLite
import Testing

/// The host's own files (its state and its capture queue) fail as ``HostStorageError``, carried
/// by ``HostError/Code/storage``, never as the cache's error.
@Suite struct HostStorageErrorTests {
    @Test func aHostStateThatCannotBeOpenedIsAStorageErrorOfTheHost() throws {
        let fixture = try HostFixture()
        // A folder where the state file belongs: SQLite cannot open it.
        try FileManager.default.createDirectory(atPath: fixture.root + "/host/host.sqlite", withIntermediateDirectories: true)
        let error = #expect(throws: HostError.self) { try fixture.host() }
        #expect(error?.code == .storage)
        #expect(error?.storageError?.code == .failed)
        #expect(error?.storageError?.path == fixture.root + "/host/host.sqlite")
        #expect(error?.cacheError == nil)
        #expect(error?.description.contains(fixture.root + "/host/host.sqlite") == true, "\(String(describing: error))")
    }

    @Test func aHostStateFolderThatCannotBeCreatedNamesTheFolder() throws {
        let fixture = try HostFixture()
        try Data("a file, not a folder".utf8).write(to: URL(fileURLWithPath: fixture.root + "/host"))
        let error = #expect(throws: HostError.self) { try fixture.host() }
        #expect(error?.code == .storage)
        #expect(error?.storageError?.code == .folder)
        #expect(error?.storageError?.path == fixture.root + "/host")
        #expect(error?.cacheError == nil)
    }

    @Test func aFolderWhereTheCaptureQueueBelongsIsRefusedAsForeign() throws {
        let folder = try CaptureFolder()
        try FileManager.default.createDirectory(atPath: folder.queuePath, withIntermediateDirectories: true)
        let error = #expect(throws: HostError.self) { try CaptureQueue(path: folder.queuePath) }
        #expect(error?.code == .storage)
        #expect(error?.storageError?.code == .foreign)
        #expect(error?.cacheError == nil)
        #expect(error?.description.contains(folder.queuePath) == true)
    }

    /// What SQLite reports keeps its meaning: a full disk stays a full disk (the CLI's exit
    /// status depends on it), a lock held too long stays busy, something other than a file in
    /// the database's place is foreign.
    @Test(arguments: [
        (SQLiteError.Code.full, HostStorageError.Code.diskFull), (.readOnly, .readOnly), (.busy, .busy),
        (.foreignFile, .foreign), (.corrupt, .failed), (.notADatabase, .failed), (.io, .failed), (.failed, .failed),
    ])
    func sqliteFailuresKeepTheirKind(_ sqlite: SQLiteError.Code, _ expected: HostStorageError.Code) {
        let error = HostStorageError(
            sqlite: SQLiteError(sqlite, "database write failed: database or disk is full (13)", path: "/state/host.sqlite"))
        #expect(error.code == expected)
        #expect(error.path == "/state/host.sqlite")
        #expect(error.description == "/state/host.sqlite: database write failed: database or disk is full (13)")
    }
}
