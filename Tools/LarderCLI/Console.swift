import Foundation
import LarderFormat
import LarderSystem

/// Exit statuses a script can rely on.
package enum ExitCode: Int32 {
    case success = 0
    /// Anything not listed below.
    case failure = 1
    /// The command line was wrong.
    case usage = 64
    /// The input is invalid: a source folder with broken references, an archive that fails
    /// verification.
    case dataError = 65
    /// An input file or folder does not exist or cannot be opened.
    case noInput = 66
    /// A service is not available: nothing to show because the origin could not be reached
    /// or asked, and nothing usable was cached.
    case unavailable = 69
    /// The output could not be created.
    case cannotCreate = 73
    /// Try again later (another process holds the sweep lock).
    case temporaryFailure = 75
    /// The output could not be written (a closed pipe, a full disk): `EX_IOERR`.
    case ioError = 74
    /// Permission denied: the origin refused the key or the journey.
    case noPermission = 77

    /// The code a `--json` failure object carries when the command's error gave none
    /// (``FailureJSON/ensure(_:wanted:)``).
    var name: String {
        switch self {
        case .success: "success"
        case .failure: "failure"
        case .usage: "usage"
        case .dataError: "data-error"
        case .noInput: "no-input"
        case .unavailable: "unavailable"
        case .cannotCreate: "cannot-create"
        case .temporaryFailure: "temporary-failure"
        case .ioError: "io-error"
        case .noPermission: "no-permission"
        }
    }
}

/// Where the commands write: stdout for results, stderr for errors, warnings and progress.
///
/// Everything printed for people passes through ``DisplayText/escaping(lines:)``: a control
/// character that reaches a line (a hostile bundle name, path or URL the printer forgot to
/// escape) is shown escaped, never sent to the terminal. Values from inputs are escaped where
/// they are put in a line (``shown(_:)``, ``table(_:)``), so a newline in them is escaped too;
/// JSON (``json(_:)``) is written as it is, its encoder escaping control characters.
///
/// Writes go straight to the descriptors (`write(2)`), not through `FileHandle`, whose
/// `write` traps on an error: output that cannot be written (a reader that went away, a full
/// disk) ends the command with a message and exit 74. `main` ignores `SIGPIPE` so a closed
/// pipe is such an error rather than a silent kill.
enum Console {
    /// What this process printed so far, for the `--json` failure object a command that
    /// printed nothing on stdout ends with (``FailureJSON/ensure(_:wanted:)``).
    struct Record {
        /// Whether anything was written to stdout.
        var wroteStdout = false
        /// The first line of the last failure's message (``failure(_:)``), without the prefix.
        var lastError: String?
    }

    static let record = Locked(Record())

    static func out(_ text: String) {
        record.withLock { $0.wroteStdout = true }
        write(line(text), to: 1)
    }

    /// A line for people on stderr that is not a failure's message: a warning, a hint, a detail.
    static func error(_ text: String) {
        write(line(text), to: 2)
    }

    /// The one prefix every failure's message starts with, as swift-argument-parser prints
    /// its own (`Error: Missing expected argument …`).
    static let failurePrefix = "Error: "

    /// A failure's message on stderr: ``failurePrefix``, then `message` (whose first line is
    /// remembered for the `--json` failure object, ``FailureJSON/ensure(_:wanted:)``). Every
    /// failure the commands report goes through here.
    static func failure(_ message: String) {
        record.withLock { $0.lastError = String(message.prefix { $0 != "\n" }) }
        write(line(failurePrefix + message), to: 2)
    }

    private static func line(_ text: String) -> String {
        let escaped = DisplayText.escaping(lines: text)
        return escaped.hasSuffix("\n") ? escaped : escaped + "\n"
    }

    /// Progress on stderr, as it is (no newline: a bar redraws its line).
    static func progress(_ text: String) {
        write(text, to: 2)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + done, $0.count - done) }
            if written >= 0 {
                done += written
                continue
            }
            if errno == EINTR { continue }
            let reason = String(cString: strerror(errno))
            if descriptor != 2 {
                bytes = Array("\(failurePrefix)cannot write the output: \(reason)\n".utf8)
                _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress!, $0.count) }  // the exit status says it if this fails too
            }
            exit(ExitCode.ioError.rawValue)
        }
    }

    /// Writes a JSON document with stable (sorted) keys and a final newline.
    static func json(_ value: JSONValue) {
        record.withLock { $0.wroteStdout = true }
        write(String(decoding: value.canonicalBytes, as: UTF8.self) + "\n", to: 1)
    }

    static func usageError(_ error: UsageError) -> ExitCode {
        Console.failure(
            "\(shown(error.message))\n" + UsageWrapping.block(error.command.usage, label: "Usage: ")
                + "  See 'larder \(error.command.name) --help' for more information.")
        return .usage
    }
}

/// Sizes for people: 1.4 MB, 980 B (SI units, like `ls -h --si`).
package func humanSize(_ bytes: Int64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1000 && unit < units.count - 1 {
        value /= 1000
        unit += 1
    }
    return unit == 0 ? "\(bytes) B" : String(format: value < 10 ? "%.1f" : "%.0f", value) + " " + units[unit]
}

/// A value from an input (a name, path, URL, journey id, or an error or message quoting one)
/// as it may be put in a line for people: ``DisplayText/escaping(_:)``, newlines included.
func shown(_ value: some CustomStringConvertible) -> String {
    DisplayText.escaping(value.description)
}

/// An error, as ``shown(_:)`` shows a value.
func shown(_ error: any Error) -> String {
    DisplayText.escaping(String(describing: error))
}

/// Pads table columns to their widest cell; the last column is not padded. Cells are
/// ``shown(_:)``.
func table(_ rows: [[String]]) -> String {
    let rows = rows.map { $0.map(shown) }
    guard let columns = rows.first?.count else { return "" }
    var widths = [Int](repeating: 0, count: columns)
    for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
    return rows.map { row in
        row.enumerated().map { index, cell in
            index == columns - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
        }.joined(separator: "  ")
    }.joined(separator: "\n")
}
