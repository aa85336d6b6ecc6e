import LarderFormat
import LarderSQLite

/// The cache index's one mapping from SQLite's error: full, read-only and busy keep their
/// meaning, something other than a file in the index's place is ``CacheError/Code/foreignEntry``
/// (the cache's layout refuses it before opening; this is the backstop), anything else is
/// ``CacheError/Code/storage``; the message and path are kept.
extension CacheError: SQLiteFailure {
    package init(sqlite error: SQLiteError) {
        let code: Code =
            switch error.code {
            case .full: .diskFull
            case .readOnly: .readOnly
            case .busy: .busy
            case .foreignFile: .foreignEntry
            default: .storage
            }
        self.init(code, error.message, path: error.path)
    }

    package var isBusy: Bool { code == .busy }
}

/// The cache index's connection.
typealias IndexDatabase = SQLiteDatabase<CacheError>

extension Statement where Failure == CacheError {
    /// A digest column; a value that does not parse means the index is damaged.
    func digest(_ column: Int32) throws(CacheError) -> Digest {
        let text = self.text(column)
        do { return try Digest(parsing: text) } catch {
            throw CacheError(.storage, "the cache index holds a damaged digest '\(text.prefix(80))'; purge the cache", path: database.path)
        }
    }
}
