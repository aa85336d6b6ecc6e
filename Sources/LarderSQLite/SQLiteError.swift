import CSQLite

/// A failure of an SQLite connection or of the checks made before opening one: what kind
/// (``Code``), SQLite's message with what was being done, and the database file.
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. Extensible.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        package init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// Another connection held the lock past the busy timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`).
        package static let busy = Code("busy")
        /// The connection, file or file system cannot be written (`SQLITE_READONLY`), or a
        /// read-only open needs a file it cannot create.
        package static let readOnly = Code("read-only")
        /// The file system is full or the quota used up (`SQLITE_FULL`).
        package static let full = Code("full")
        /// The file is damaged (`SQLITE_CORRUPT`).
        package static let corrupt = Code("corrupt")
        /// The file is not an SQLite database (`SQLITE_NOTADB`).
        package static let notADatabase = Code("not-a-database")
        /// Something other than a regular file (a FIFO, a device, a socket, a symbolic link)
        /// stands where the database file should be; it was not opened.
        package static let foreignFile = Code("foreign-file")
        /// The operating system failed to read or write (`SQLITE_IOERR`), or a lock file
        /// could not be taken.
        package static let io = Code("io")
        /// The file cannot be opened (`SQLITE_CANTOPEN`).
        package static let cannotOpen = Code("cannot-open")
        /// Any other failure; the message says which.
        package static let failed = Code("failed")
    }

    package var code: Code
    package var message: String
    /// The database file involved (or the lock file).
    package var path: String?

    package init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    /// The code for an SQLite result code (its primary code, the low byte).
    package init(status: Int32, _ message: String, path: String?) {
        self.init(Self.code(status), message, path: path)
    }

    /// The ``Code`` for an SQLite result code.
    package static func code(_ status: Int32) -> Code {
        switch status & 0xFF {
        case SQLITE_FULL: .full
        case SQLITE_READONLY: .readOnly
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_CORRUPT: .corrupt
        case SQLITE_NOTADB: .notADatabase
        case SQLITE_IOERR: .io
        case SQLITE_CANTOPEN: .cannotOpen
        default: .failed
        }
    }

    package var description: String { (path.map { "\($0): " } ?? "") + message }
}
