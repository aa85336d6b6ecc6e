import Foundation
import LarderTestSupport
import LarderSystem
import LarderCache
import LarderFormat
import LarderPack
import LarderPublish
import LarderTransport

/// A real nginx on 127.0.0.1 serving an origin folder (Tools/origin/origin.sh), stopped when
/// the test ends.
final class Origin: @unchecked Sendable {
    let scratch: String
    let root: String
    let run: String
    let port: Int

    static let script = repositoryPath("Tools/origin/origin.sh")

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("larder-origin-\(UUID().uuidString)").path
        root = scratch + "/origin"
        run = scratch + "/run"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let output = try Self.shell(["bash", Self.script, "start", root, run])
        guard let port = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw IntegrationError("origin.sh start printed '\(output)'")
        }
        self.port = port
    }

    deinit {
        _ = try? Self.shell(["bash", Self.script, "stop", run])  // best effort: the test is over either way
        do { try FileManager.default.removeItem(atPath: scratch) } catch { print("could not remove \(scratch): \(error)") }
    }

    var base: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    func reload() throws { _ = try Self.shell(["bash", Self.script, "reload", run]) }
    /// Stops nginx: connections to its port are refused from then on.
    func stop() throws { _ = try Self.shell(["bash", Self.script, "stop", run]) }

    /// Empties the access maps and reloads: every key is revoked.
    func revokeAllKeys() throws {
        try Data().write(to: URL(fileURLWithPath: root + "/access/keys.map"))
        try Data().write(to: URL(fileURLWithPath: root + "/access/grants.map"))
        try reload()
    }
    func restart() throws { _ = try Self.shell(["bash", Self.script, "restart", run]) }

    /// access.log lines, one per request.
    var accessLog: [String] {
        ((try? String(contentsOfFile: run + "/access.log", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func clearAccessLog() throws {
        try Data().write(to: URL(fileURLWithPath: run + "/access.log"))
    }

    @discardableResult
    func publish(_ archives: [String], journey: JourneyPublication? = nil) throws -> PublishReport {
        try OriginPublisher.publish(archives: archives, to: root, journey: journey)
    }

    /// Runs a command and returns its standard output. It spawns and waits with
    /// posix_spawn and waitpid (Foundation's Process can stall inside async tests), and output
    /// goes through a file, not a pipe: nginx daemonises and would keep a pipe open.
    @discardableResult
    static func shell(_ arguments: [String]) throws -> String {
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("larder-shell-\(UUID().uuidString)").path
        defer { unlink(capture) }
        let spawn = Spawn(
            command: arguments, searchesPath: true, standardInput: .null, standardOutput: .truncating(capture), standardError: .standardOutput)
        let pid: pid_t
        do { pid = try spawn.start() } catch { throw IntegrationError(error.description) }
        var waitStatus: Int32 = 0
        while waitpid(pid, &waitStatus, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
        guard waitStatus == 0 else {
            throw IntegrationError("\(arguments.joined(separator: " ")) failed (\(waitStatus)): \(output)")
        }
        return output.split(separator: "\n").last.map(String.init) ?? ""
    }
}

struct IntegrationError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Scratch space for archives and caches.
final class Workspace: @unchecked Sendable {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-it-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit {
        do { try FileManager.default.removeItem(atPath: path) } catch { print("could not remove \(path): \(error)") }
    }

    func pack(_ source: String) throws -> PackReport {
        try Packer.pack(source: source, into: path + "/archives")
    }

    /// Packs a copy of `source` with its fonts as written (`"fonts": {"woff2": false}`): for
    /// tests that need a bundle of the size the samples had before their fonts were converted
    /// and subset (onboarding's archive is then about 760 kB instead of 130 kB).
    func packWithFontsAsWritten(_ source: String) throws -> PackReport {
        try pack(copySource(source, to: path + "/sources/" + URL(fileURLWithPath: source).lastPathComponent, fonts: #"{"woff2": false}"#))
    }

    func cache(_ name: String = "cache") throws -> LarderCache {
        try LarderCache(at: path + "/" + name)
    }
}
