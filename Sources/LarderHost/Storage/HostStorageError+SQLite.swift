import LarderSQLite

/// The host stores' one mapping from SQLite's error: full, read-only and busy keep their
/// meaning, something other than a file where the database belongs is ``HostStorageError/Code/foreign``,
/// anything else ``HostStorageError/Code/failed``; the message and path are kept.
extension HostStorageError: SQLiteFailure {
    package init(sqlite error: SQLiteError) {
        let code: Code =
            switch error.code {
            case .full: .diskFull
            case .readOnly: .readOnly
            case .busy: .busy
            case .foreignFile: .foreign
            default: .failed
            }
        self.init(code, error.message, path: error.path)
    }

    package var isBusy: Bool { code == .busy }
}

/// A connection of the host's own storage (`host.sqlite`, `capture.sqlite`, the trigger state).
typealias HostDatabase = SQLiteDatabase<HostStorageError>
