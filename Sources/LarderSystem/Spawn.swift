#if os(Linux)
import Glibc

/// A program to start with `posix_spawn(3)`, its standard streams set by file actions: the one
/// place that spawns a process with them (the Xvfb watchdog, the tools' children, the tests'
/// servers and command lines).
///
/// Not Foundation's `Process`: its wait can stall once GLib handles SIGCHLD in the process, or
/// miss a child's exit asleep in its run loop. The caller waits for the child it starts
/// (``ChildExit``), with whatever deadline it needs.
///
/// ```swift
/// let pid = try Spawn("/bin/sh", arguments: ["-c", "date"], standardInput: .null, standardOutput: .truncating(path)).start()
/// let code = try ChildExit.wait(for: pid)
/// ```
package struct Spawn: Sendable {
    /// The program: a path, or with ``searchesPath`` a name looked up on `PATH` too. It is also
    /// the child's `argv[0]`.
    package var executable: String
    /// The arguments after `argv[0]`.
    package var arguments: [String]
    /// The child's whole environment; nil: this process's (`environ`).
    package var environment: [String: String]?
    /// `posix_spawnp(3)`: a name without a slash is looked up on `PATH`.
    package var searchesPath: Bool
    package var standardInput: Redirection
    package var standardOutput: Redirection
    package var standardError: Redirection
    package var signals: Signals

    package init(
        _ executable: String, arguments: [String] = [], environment: [String: String]? = nil, searchesPath: Bool = false,
        standardInput: Redirection = .inherit, standardOutput: Redirection = .inherit, standardError: Redirection = .inherit,
        signals: Signals = .inherited
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.searchesPath = searchesPath
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.signals = signals
    }

    /// The same with the program and its arguments in one list (`command[0]` is the program).
    package init(
        command: [String], environment: [String: String]? = nil, searchesPath: Bool = false, standardInput: Redirection = .inherit,
        standardOutput: Redirection = .inherit, standardError: Redirection = .inherit, signals: Signals = .inherited
    ) {
        precondition(!command.isEmpty, "a command names its program")
        self.init(
            command[0], arguments: Array(command.dropFirst()), environment: environment, searchesPath: searchesPath,
            standardInput: standardInput, standardOutput: standardOutput, standardError: standardError, signals: signals)
    }

    /// The signal state the child starts with.
    package enum Signals: Sendable, Equatable {
        /// This process's: its signal mask and the signals it ignores (no spawn attributes).
        case inherited
        /// No signal blocked and `defaulting` back at their default action
        /// (``withCleanSpawnAttributes(defaulting:_:)``).
        case clean(defaulting: [Int32])
    }

    /// Starts the program (`posix_spawn(3)`, or `posix_spawnp`). glibc reports a program that
    /// cannot be run, or a file action that fails (a file to open that is missing), here
    /// rather than as a child that exits 127.
    /// - Returns: the child's process id; the caller reaps it.
    /// - Throws: ``SpawnError``.
    package func start() throws(SpawnError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        let initialized = posix_spawn_file_actions_init(&actions)
        guard initialized == 0 else { throw SpawnError(executable: executable, errno: Errno(rawValue: initialized)) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, redirection) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            let added = redirection.add(to: &actions, for: descriptor)
            guard added == 0 else { throw SpawnError(executable: executable, errno: Errno(rawValue: added)) }
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let spawned = withAttributes { attributes in
            let spawn = searchesPath ? posix_spawnp : posix_spawn
            guard let envp else { return spawn(&pid, executable, &actions, attributes, argv, environ) }
            return spawn(&pid, executable, &actions, attributes, argv, envp)
        }
        guard spawned == 0 else { throw SpawnError(executable: executable, errno: Errno(rawValue: spawned)) }
        return pid
    }

    private func withAttributes(_ body: (UnsafePointer<posix_spawnattr_t>?) -> Int32) -> Int32 {
        switch signals {
        case .inherited: body(nil)
        case .clean(let defaulting): withCleanSpawnAttributes(defaulting: defaulting) { body($0) }
        }
    }
}

/// A program ``Spawn`` could not start: its path and the error number (`ENOENT` for a missing
/// program or file to open, `EACCES` for one that may not be run).
package struct SpawnError: Error, Equatable, Sendable, CustomStringConvertible {
    package var executable: String
    package var errno: Errno

    package init(executable: String, errno: Errno) {
        self.executable = executable
        self.errno = errno
    }

    package var description: String { "cannot start \(executable): \(errno)" }
}
#endif
