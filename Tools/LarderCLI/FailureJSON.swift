import LarderCache
import LarderFormat

/// How a command ends on a failure: the message on stderr (`Error: …`, or the usage block),
/// and with `--json` also one JSON object on stdout, so a pipeline reading stdout gets a
/// document either way:
///
/// ```json
/// {"error":{"code":"cache-not-found","message":"…","path":"/srv/cache"},"status":66}
/// ```
///
/// `code` is the error's code (``CacheError/Code``, ``PackError/Code``,
/// ``TransportError/Code``, …), `usage` for a command-line error or `no-input` for a missing
/// file; `status` the exit status; `path` is there when the error names one. Successful
/// `--json` output is unchanged.
enum FailureJSON {
    /// The failure object.
    static func object(_ status: ExitCode, code: String, message: String, path: String?) -> JSONValue {
        var error: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        if let path { error["path"] = .string(path) }
        return .object(["status": .int(Int64(status.rawValue)), "error": .object(error)])
    }

    /// Prints the failure object on stdout.
    static func print(_ status: ExitCode, code: String, message: String, path: String? = nil) {
        Console.json(object(status, code: code, message: message, path: path))
    }

    /// A usage error: the usage block on stderr, and with `json` the object with code `usage`.
    /// - Returns: ``ExitCode/usage``.
    static func usage(_ error: UsageError, json: Bool) -> ExitCode {
        if json { print(.usage, code: "usage", message: error.message) }
        return Console.usageError(error)
    }

    /// A failure with one message: `Error: <message>` on stderr (``Console/failure(_:)``), and
    /// with `json` the object.
    /// - Returns: `status`.
    static func failed(_ status: ExitCode, code: String, message: String, path: String? = nil, json: Bool) -> ExitCode {
        Console.failure(shown(message))
        if json { print(status, code: code, message: message, path: path) }
        return status
    }

    /// Makes sure a command that failed under `--json` printed a document on stdout: when it
    /// printed nothing there, prints the failure object with the last error message and the
    /// code its exit status names (`usage`, `no-input`, …). Every command's own failure object,
    /// which carries the error's own code, comes first; this is the net under the rest. Nothing
    /// is added when the output itself failed (74).
    /// - Returns: `status`.
    static func ensure(_ status: ExitCode, wanted: Bool) -> ExitCode {
        guard wanted, status != .success, status != .ioError else { return status }
        let record = Console.record.withLock { $0 }
        guard !record.wroteStdout else { return status }
        print(status, code: status.name, message: record.lastError ?? "failed with exit status \(status.rawValue)")
        return status
    }

    /// Whether a command line asks for JSON, read before (or whether or not) it parses, so a
    /// usage error can answer in JSON too.
    static func wanted(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }
}
