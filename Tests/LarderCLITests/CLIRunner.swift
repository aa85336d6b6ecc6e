import Foundation
import LarderSystem
import LarderTestSupport
import Testing

/// Runs the built `larder` binary and captures what it prints.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CLI {
    /// The `larder` executable next to the test bundle.
    static let executable: String = {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent("larder").path
    }()

    /// `larder-webkit`, the same commands with the web engine, beside it.
    static let webEngineExecutable: String = URL(fileURLWithPath: executable).deletingLastPathComponent()
        .appendingPathComponent("larder-webkit").path

    /// - Parameters:
    ///   - program: the executable (default: the built `larder`).
    ///   - stdout: where standard output goes (default: captured).
    static func run(
        program: String = executable, _ arguments: [String], environment: [String: String] = [:], umask mask: String? = nil,
        stdout: String? = nil
    ) throws -> CLIResult {
        let command = mask.map { ["/bin/sh", "-c", "umask \($0) && exec \"$0\" \"$@\"", program] + arguments } ?? [program] + arguments
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = "80"
        for (key, value) in environment { env[key] = value }
        let out = try CaptureFile()
        let err = try CaptureFile()
        let status = try wait(spawn(command, environment: env, stdout: stdout ?? out.path, stderr: err.path))
        return CLIResult(
            status: status, stdout: String(decoding: try out.contents(), as: UTF8.self),
            stderr: String(decoding: try err.contents(), as: UTF8.self))
    }

    /// Runs a shell command (gzip, tar) and returns its stdout bytes.
    @discardableResult
    static func shell(_ command: String) throws -> Data {
        let out = try CaptureFile()
        let status = try wait(spawn(["/bin/sh", "-c", command], stdout: out.path))
        guard status == 0 else { throw CLIError("'\(command)' exited with \(status)") }
        return try out.contents()
    }

    /// Starts `arguments` with posix_spawn (not Foundation's Process, whose wait can stall
    /// once GLib, under WebKitGTK in this test process, handles SIGCHLD), no signal blocked,
    /// output to files (a process started meanwhile by WebKitGTK inherits every open
    /// descriptor and would keep a pipe open), stdin from /dev/null.
    /// - Returns: the child's pid.
    static func spawn(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment, stdout: String? = nil,
        stderr: String? = nil
    ) throws -> pid_t {
        let spawn = Spawn(
            command: arguments, environment: environment, standardInput: .null, standardOutput: .appending(stdout ?? "/dev/null"),
            standardError: .appending(stderr ?? "/dev/null"), signals: .clean(defaulting: []))
        do { return try spawn.start() } catch { throw CLIError(error.description) }
    }

    /// Waits for `pid` and returns its exit status (128 + the signal when killed).
    static func wait(_ pid: pid_t) throws -> Int32 {
        do { return try ChildExit.wait(for: pid) } catch { throw CLIError("waitpid failed: \(error)") }
    }
}

/// A temporary file a child process writes its output to, removed when dropped.
final class CaptureFile {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-cli-output-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CLIError("cannot create \(path)") }
    }

    deinit { unlink(path) }

    /// What the child wrote.
    func contents() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }
}

struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A scratch folder removed when the test ends.
final class Scratch {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit {
        do { try FileManager.default.removeItem(atPath: path) } catch { print("could not remove \(path): \(error)") }
    }
}


/// The data ranges of the regular files in an uncompressed tar stream, by path.
func tarFileRanges(_ tar: [UInt8]) -> [(path: String, range: Range<Int>)] {
    var result: [(String, Range<Int>)] = []
    var offset = 0
    var paxPath: String?
    while offset + 512 <= tar.count {
        let header = Array(tar[offset..<offset + 512])
        if header.allSatisfy({ $0 == 0 }) { break }
        func field(_ start: Int, _ length: Int) -> String {
            String(decoding: header[start..<start + length].prefix { $0 != 0 }, as: UTF8.self)
        }
        let size = Int(field(124, 12).trimmingCharacters(in: .whitespaces), radix: 8) ?? 0
        let type = header[156]
        let prefix = field(345, 155)
        let name = prefix.isEmpty ? field(0, 100) : prefix + "/" + field(0, 100)
        let dataStart = offset + 512
        if type == UInt8(ascii: "x") {
            let records = String(decoding: tar[dataStart..<dataStart + size], as: UTF8.self)
            paxPath = records.split(separator: "\n").first { $0.contains(" path=") }.map { String($0[$0.range(of: "path=")!.upperBound...]) }
        } else {
            if type == UInt8(ascii: "0") || type == 0 { result.append((paxPath ?? name, dataStart..<dataStart + size)) }
            paxPath = nil
        }
        offset = dataStart + (size + 511) / 512 * 512
    }
    return result
}

/// Packs a folder of SampleBundles with `larder pack` into `folder`.
/// - Returns: the archive's path.
func packSample(_ name: String, into folder: String) throws -> String {
    let pack = try CLI.run(["pack", sampleBundles + "/" + name, "-o", folder, "--json"])
    #expect(pack.status == 0, "\(pack.stderr)")
    let report = try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any]
    return try #require(report?["archivePath"] as? String)
}
