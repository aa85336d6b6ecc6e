import Foundation
import LarderFormat
import LarderPack

/// How `larder publish` ends on a failure: the message on stderr (`Error: …`, or the usage
/// block), and with `--json` also one JSON object on stdout, so a pipeline reading stdout
/// gets a document either way:
///
/// ```json
/// {"error":{"code":"origin-transfer","message":"…"},"status":74}
/// ```
///
/// `code` is the ``PackError/Code`` (`origin-unavailable`, `origin-transfer`, `invalid-source`,
/// …), `usage` for a command-line error or `no-input` for a missing file; `status` the exit
/// status; `path` is there when the error names one.
enum PublishFailureJSON {
    /// A usage error: the usage block on stderr, and the JSON object with code `usage`.
    static func usage(_ error: UsageError, json: Bool) -> ExitCode {
        FailureJSON.usage(error, json: json)
    }

    /// A failure with one message.
    static func failed(_ status: ExitCode, code: String, message: String, json: Bool) -> ExitCode {
        FailureJSON.failed(status, code: code, message: message, json: json)
    }

    /// A publish that failed: every error on stderr, the first in the JSON object.
    static func failed(_ status: ExitCode, _ failure: PackFailure, json: Bool) -> ExitCode {
        for problem in failure.errors { Console.failure("\(shown(problem))") }
        if json, let first = failure.errors.first {
            FailureJSON.print(status, code: first.code.rawValue, message: first.description, path: first.path)
        }
        return status
    }
}
