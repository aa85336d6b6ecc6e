import CSQLite
import LarderSystem

extension SQLiteDatabase {
    /// Opens (creating) the database at `path` for reading and writing.
    ///
    /// Only a regular file is opened: a FIFO, a device, a socket or a symbolic link in its
    /// place is refused before `open(2)` (which could block on a FIFO).
    /// - Throws: `Failure` from ``SQLiteError/Code/foreignFile`` for such a file, or from
    ///   SQLite's code when it cannot be opened.
    package convenience init(path: String) throws(Failure) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let handle: OpaquePointer
        do throws(SQLiteError) {
            try Self.refuseForeignFile(path)
            handle = try Self.open(path, flags: flags, path: path)
        } catch {
            throw Failure(sqlite: error)
        }
        self.init(handle: handle, path: path)
        // Keep the -wal file when the last connection closes: a new process's first write then
        // reuses it instead of creating and syncing a new one (and its folder).
        var persist: Int32 = 1
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
    }

    /// Opens an existing database only to read it (`SQLITE_OPEN_READONLY`): nothing is created
    /// or written, so it works on a read-only file system and in another user's folder.
    ///
    /// A WAL database needs its `-shm` file, which SQLite opens read-only when it cannot write
    /// it. When that file is missing and cannot be created here, the database is opened
    /// `immutable` instead, but only if its `-wal` file is absent or empty: then the main file
    /// holds every committed transaction. Otherwise the log may hold transactions the main file
    /// lacks, and the open fails.
    /// - Throws: `Failure` from ``SQLiteError/Code/readOnly`` when it cannot be read that way,
    ///   ``SQLiteError/Code/foreignFile`` when the file is not a regular file.
    package convenience init(readingOnly path: String) throws(Failure) {
        let handle: OpaquePointer
        do throws(SQLiteError) { handle = try Self.openForReading(path) } catch { throw Failure(sqlite: error) }
        self.init(handle: handle, path: path)
    }

    private static func openForReading(_ path: String) throws(SQLiteError) -> OpaquePointer {
        try refuseForeignFile(path)
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        var handle = try open(uri(path, immutable: false), flags: flags, path: path)
        sqlite3_busy_timeout(handle, busyTimeout)
        var status = probe(handle)
        if status != SQLITE_OK, [SQLITE_CANTOPEN, SQLITE_READONLY].contains(status & 0xFF), logIsEmpty(path) {
            sqlite3_close_v2(handle)
            handle = try open(uri(path, immutable: true), flags: flags, path: path)
            status = probe(handle)
        }
        guard status == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(handle))
            sqlite3_close_v2(handle)
            guard [SQLITE_CANTOPEN, SQLITE_READONLY].contains(status & 0xFF) else {
                throw SQLiteError(status: status, "cannot read the database: \(message) (\(status))", path: path)
            }
            throw SQLiteError(
                .readOnly,
                "cannot read the database without writing to its folder (\(message)): its write-ahead log needs "
                    + "\(path.split(separator: "/").last ?? "")-shm, which is missing and cannot be created here; open it once "
                    + "read-write", path: path)
        }
        return handle
    }

    /// Refuses a path where something other than a regular file or a folder stands
    /// (`lstat(2)`): SQLite would open it, and `open(2)` of a FIFO may never return. A missing
    /// file is fine (SQLite creates it); a folder is left to SQLite, which refuses it.
    static func refuseForeignFile(_ path: String) throws(SQLiteError) {
        guard path != ":memory:", !path.isEmpty else { return }
        let kind: FileKind
        do { kind = try FileStatus.ofLink(path).kind } catch {
            if error == .notFound { return }
            throw SQLiteError(.io, "cannot open the database: \(error)", path: path)
        }
        guard kind == .regular || kind == .folder else {
            throw SQLiteError(
                .foreignFile, "cannot open the database: \(kind.description) stands where its file should be; move it away", path: path)
        }
    }

    /// `sqlite3_open_v2`, closing the handle again on failure.
    private static func open(_ target: String, flags: Int32, path: String) throws(SQLiteError) -> OpaquePointer {
        var db: OpaquePointer?
        let status = sqlite3_open_v2(target, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "status \(status)"
            sqlite3_close(db)
            throw SQLiteError(status: status, "cannot open the database: \(message)", path: path)
        }
        return db
    }

    /// A `file:` URI for `path` (`%`, `?` and `#` escaped), read-only, `immutable` if asked.
    private static func uri(_ path: String, immutable: Bool) -> String {
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "file:" + escaped + "?mode=ro" + (immutable ? "&immutable=1" : "")
    }

    /// Reads the schema (`PRAGMA schema_version`): the first read, where a WAL database opens
    /// its `-shm` file. Returns the status.
    private static func probe(_ handle: OpaquePointer) -> Int32 {
        var statement: OpaquePointer?
        var status = sqlite3_prepare_v2(handle, "PRAGMA schema_version", -1, &statement, nil)
        if status == SQLITE_OK {
            status = sqlite3_step(statement)
            if status == SQLITE_ROW || status == SQLITE_DONE { status = SQLITE_OK }
        }
        sqlite3_finalize(statement)
        return status
    }

    /// Whether the database's `-wal` file is missing or empty.
    private static func logIsEmpty(_ path: String) -> Bool {
        do { return try FileStatus.ofLink(path + "-wal").size == 0 } catch { return error == .notFound }
    }
}
