#if os(Linux)
import Glibc

extension Spawn {
    /// Where one of the child's standard streams (0, 1 or 2) goes: a file action of the spawn.
    package enum Redirection: Sendable, Equatable {
        /// This process's own descriptor, as it is (no file action).
        case inherit
        /// `/dev/null`: read-only for standard input, write-only for the others.
        case null
        /// The file at a path, opened with these options (and permissions, for a file created).
        case file(String, OpenOptions, permissions: mode_t = 0o644)
        /// A descriptor of this process (a pipe's end), copied (`dup2`); the copy is not
        /// closed on exec even when the original is.
        case descriptor(Int32)
        /// Standard error only: wherever standard output went (`2>&1`).
        case standardOutput

        /// Creates or empties the file, 0644 (`> path`).
        package static func truncating(_ path: String) -> Redirection {
            .file(path, [.writeOnly, .create, .truncate], permissions: 0o644)
        }

        /// Appends to a file that must exist (`>> path`, without creating it).
        package static func appending(_ path: String) -> Redirection {
            .file(path, [.writeOnly, .append], permissions: 0)
        }

        /// Adds the file action for `descriptor`.
        /// - Returns: 0, or the error number.
        func add(to actions: inout posix_spawn_file_actions_t, for descriptor: Int32) -> Int32 {
            switch self {
            case .inherit:
                0
            case .null:
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path, let options, let permissions):
                posix_spawn_file_actions_addopen(&actions, descriptor, path, options.rawValue, permissions)
            case .descriptor(let source):
                posix_spawn_file_actions_adddup2(&actions, source, descriptor)
            case .standardOutput:
                posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
            }
        }
    }
}
#endif
