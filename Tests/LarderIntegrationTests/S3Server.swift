import Foundation
import LarderSystem
import LarderTestSupport

/// moto's S3 server on a free 127.0.0.1 port (Tools/s3/s3-server.py, with moto from
/// Tools/setup.sh), checking every request's signature, with a request log and injected
/// faults; stopped when the test ends.
final class S3Server: @unchecked Sendable {
    let run: String
    let port: Int
    let accessKeyID: String
    let secretAccessKey: String
    /// An assumed role's temporary credentials: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
    /// `AWS_SESSION_TOKEN`.
    let sessionCredentials: [String: String]
    private let pid: pid_t

    static let python = "/opt/larder-moto/bin/python"
    static let script = repositoryPath("Tools/s3/s3-server.py")

    /// Starts the server with these buckets and waits (up to 60 s) until it listens.
    init(buckets: [String] = ["larder"]) throws {
        run = FileManager.default.temporaryDirectory.appendingPathComponent("larder-s3-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw IntegrationError("\(Self.python) is missing: run Tools/setup.sh (it installs moto)")
        }
        let arguments = [Self.script, run, "--auth"] + buckets.flatMap { ["--bucket", $0] }
        let server = Spawn(
            Self.python, arguments: arguments, standardInput: .null, standardOutput: .truncating(run + "/server.log"),
            standardError: .standardOutput)
        let pid: pid_t
        do { pid = try server.start() } catch { throw IntegrationError(error.description) }
        self.pid = pid
        let deadline = Date().addingTimeInterval(60)
        var port: Int?
        while port == nil {
            if let text = try? String(contentsOfFile: run + "/port", encoding: .utf8) { port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) }  // not written yet
            var waitStatus: Int32 = 0
            if port == nil, waitpid(pid, &waitStatus, WNOHANG) == pid {
                throw IntegrationError("s3-server.py exited: \(Self.read(run + "/server.log").suffix(2000))")
            }
            guard port != nil || Date() < deadline else {
                kill(pid, SIGKILL)
                throw IntegrationError("s3-server.py did not listen within 60 s: \(Self.read(run + "/server.log").suffix(2000))")
            }
            if port == nil { usleep(50_000) }
        }
        self.port = port ?? 0
        let keys = Self.read(run + "/credentials").split(separator: "\n").map(String.init)
        guard keys.count == 2 else { throw IntegrationError("s3-server.py wrote no credentials") }
        accessKeyID = keys[0]
        secretAccessKey = keys[1]
        let session = Self.read(run + "/session").split(separator: "\n").map(String.init)
        guard session.count == 3 else { throw IntegrationError("s3-server.py wrote no session credentials") }
        sessionCredentials = ["AWS_ACCESS_KEY_ID": session[0], "AWS_SECRET_ACCESS_KEY": session[1], "AWS_SESSION_TOKEN": session[2]]
    }

    deinit {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        var waited = false
        for _ in 0..<100 where !waited {
            waited = waitpid(pid, &status, WNOHANG) == pid
            if !waited { usleep(50_000) }
        }
        if !waited {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
        do { try FileManager.default.removeItem(atPath: run) } catch { print("could not remove \(run): \(error)") }
    }

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The environment a `larder publish` to this server runs with.
    var environment: [String: String] {
        ["AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secretAccessKey, "AWS_SESSION_TOKEN": "", "AWS_REGION": "us-east-1", "AWS_PROFILE": "none"]
    }

    /// The HTTP origin devices read from: the bucket (path-style) and prefix.
    func origin(_ bucket: String = "larder", prefix: String) -> String { "\(endpoint)/\(bucket)/\(prefix)/" }

    /// One line per request since the last ``clearLog()``: `METHOD /path?query STATUS`.
    var requests: [String] { Self.read(run + "/requests.log").split(separator: "\n").map(String.init) }

    func clearLog() throws { try Data().write(to: URL(fileURLWithPath: run + "/requests.log")) }

    /// Makes the next `count` requests with `method` whose path contains `text` fail:
    /// `500`, `slowdown` (503 SlowDown) or `drop` (the connection closed without an answer); or
    /// answer them 500 ms late (`delay`).
    func fault(_ action: String, method: String = "PUT", contains text: String, count: Int = 1000) throws {
        _ = try Origin.shell(["curl", "-sf", "-X", "POST", "\(endpoint)/_larder/fault?method=\(method)&contains=\(text)&count=\(count)&action=\(action)"])
    }

    func clearFaults() throws { _ = try Origin.shell(["curl", "-sf", "-X", "POST", "\(endpoint)/_larder/clear"]) }

    /// An object's bytes as an anonymous device reads them; nil for any status but 200.
    func anonymousGet(_ path: String) -> Data? {
        let capture = run + "/get-\(UUID().uuidString)"
        defer { unlink(capture) }
        guard let status = try? Origin.shell(["curl", "-s", "-o", capture, "-w", "%{http_code}", endpoint + "/" + path]), status == "200" else { return nil }  // any failure reads as absent
        return FileManager.default.contents(atPath: capture)
    }

    /// The header fields of an anonymous HEAD, names lowercased.
    func anonymousHead(_ path: String) throws -> [String: String] {
        let capture = run + "/head-\(UUID().uuidString)"
        defer { unlink(capture) }
        try Origin.shell(["curl", "-s", "-I", "-o", capture, endpoint + "/" + path])
        let text = Self.read(capture)
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    private static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }  // missing reads as empty
}
