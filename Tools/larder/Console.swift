import Foundation
import LarderFormat

/// Exit statuses a script can rely on.
enum ExitCode: Int32 {
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
    /// Permission denied: the origin refused the key or the journey.
    case noPermission = 77
}

/// Where the commands write: stdout for results, stderr for errors, warnings and progress.
enum Console {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// Writes a JSON document with stable (sorted) keys and a final newline.
    static func json(_ value: JSONValue) {
        out(String(decoding: value.canonicalBytes, as: UTF8.self))
    }

    static func usageError(_ error: UsageError) -> ExitCode {
        Console.error(
            "Error: \(error.message)\nUsage: \(error.command.usage)\n  See 'larder \(error.command.name) --help' for more information.")
        return .usage
    }
}

/// Sizes for people: 1.4 MB, 980 B (SI units, like `ls -h --si`).
func humanSize(_ bytes: Int64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1000 && unit < units.count - 1 {
        value /= 1000
        unit += 1
    }
    return unit == 0 ? "\(bytes) B" : String(format: value < 10 ? "%.1f" : "%.0f", value) + " " + units[unit]
}

/// Pads table columns to their widest cell; the last column is not padded.
func table(_ rows: [[String]]) -> String {
    guard let columns = rows.first?.count else { return "" }
    var widths = [Int](repeating: 0, count: columns)
    for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
    return rows.map { row in
        row.enumerated().map { index, cell in
            index == columns - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
        }.joined(separator: "  ")
    }.joined(separator: "\n")
}
