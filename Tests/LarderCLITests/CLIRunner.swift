import Foundation
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

    static func run(_ arguments: [String], environment: [String: String] = [:], umask mask: String? = nil) throws -> CLIResult {
        let process = Process()
        if let mask {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "umask \(mask) && exec \"$0\" \"$@\"", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = "80"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes before waiting so a full pipe cannot stall the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs a shell command (gzip, tar) and returns its stdout bytes.
    @discardableResult
    static func shell(_ command: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CLIError("'\(command)' exited with \(process.terminationStatus)") }
        return data
    }
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
