import Foundation
import LarderFormat
import LarderTestSupport
import Testing

/// Issue 35, item 12: what `larder publish` to a bucket says when it cannot: an endpoint that
/// cannot be reached exits 74 as documented; no password from `--endpoint` and no secret a
/// service echoes reaches the output; `--json` prints one JSON object on failure too; a
/// service sending megabytes of headers is named for what it does, not "Out of memory".
@Suite struct S3PublishMessagesTests {
    static let environment = [
        "AWS_ACCESS_KEY_ID": "AKIAMESSAGES", "AWS_SECRET_ACCESS_KEY": "secret-key-never-shown", "AWS_SESSION_TOKEN": "session-token-never-shown",
        "AWS_REGION": "us-east-1", "AWS_PROFILE": "none",
    ]

    static func archive(_ work: Workspace) throws -> String {
        try work.pack(sampleBundles + "/legacy-prompt").archivePath
    }

    @Test func anUnreachableEndpointExits74WithoutItsPasswordAndWithJSON() async throws {
        let work = try Workspace()
        let outcome = try await LarderProcess.run(
            ["publish", try Self.archive(work), "--origin", "s3://larder/cdn", "--endpoint", "http://deploy:hunter2-endpoint-password@127.0.0.1:1", "--json"],
            environment: Self.environment, watchdog: .seconds(120))
        #expect(outcome.status == 74, "\(outcome)")
        #expect(outcome.stderr.contains("Error: ") && outcome.stderr.contains("no answer after 5 attempts"), "\(outcome.stderr)")
        for text in [outcome.stdout, outcome.stderr] {
            #expect(!text.contains("hunter2-endpoint-password") && !text.contains("secret-key-never-shown"), "\(text)")
        }
        let report = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], "\(outcome.stdout)")
        let error = try #require(report["error"] as? [String: Any])
        #expect(report["status"] as? Int == 74 && error["code"] as? String == "origin-transfer", "\(outcome.stdout)")
        #expect((error["message"] as? String)?.contains("no answer after 5 attempts") == true, "\(outcome.stdout)")
        #expect(outcome.stdout.split(separator: "\n").count == 1, "one JSON object: \(outcome.stdout)")
    }

    @Test func anEndpointThatIsNotAURLKeepsItsPasswordToo() async throws {
        let work = try Workspace()
        let outcome = try await LarderProcess.run(
            ["publish", try Self.archive(work), "--origin", "s3://larder/cdn", "--endpoint", "http://deploy:hunter2-endpoint-password@127.0.0.1:1/path", "--json"],
            environment: Self.environment)
        #expect(outcome.status == 69 && outcome.stderr.contains("is not an endpoint"), "\(outcome)")
        #expect(!(outcome.stdout + outcome.stderr).contains("hunter2-endpoint-password"), "\(outcome.stdout) \(outcome.stderr)")
        #expect(outcome.stdout.contains("\"status\":69"), "\(outcome.stdout)")
    }

    /// A service (or a proxy in front) that echoes the session token in its error.
    @Test func aServiceEchoingTheSessionTokenDoesNotPrintIt() async throws {
        let work = try Workspace()
        let body = Array(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InvalidToken</Code><Message>The provided token session-token-never-shown is malformed (signed with secret-key-never-shown)</Message></Error>"
                .utf8)
        let service = try FaultOrigin { _ in .respond(status: 400, headers: [("x-amz-request-id", "1"), ("Content-Type", "application/xml")], body: body) }
        defer { service.stop() }
        let outcome = try await LarderProcess.run(
            ["publish", try Self.archive(work), "--origin", "s3://larder/cdn", "--endpoint", "http://127.0.0.1:\(service.port)"],
            environment: Self.environment)
        #expect(outcome.status == 69 && outcome.stderr.contains("does not know these credentials (InvalidToken"), "\(outcome)")
        #expect(outcome.stderr.contains("The provided token <redacted> is malformed (signed with <redacted>)"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("never-shown"), "\(outcome.stderr)")
    }

    /// 10 MB of headers: one answer, named for what it is, not retried as a dropped connection.
    @Test(arguments: [("one header of 10 MB", 1), ("200,000 headers of 50 bytes", 200_000)])
    func aServiceSendingHugeHeadersIsNamed(_ name: String, _ count: Int) async throws {
        let work = try Workspace()
        let line = "X-Padding: " + String(repeating: "a", count: 10_000_000 / count - 13) + "\r\n"
        let head = "HTTP/1.1 200 OK\r\nx-amz-request-id: 1\r\n" + String(repeating: line, count: count) + "Content-Length: 0\r\n\r\n"
        let service = try FaultOrigin { _ in .raw(head: head, body: [], close: true) }
        defer { service.stop() }
        let outcome = try await LarderProcess.run(
            ["publish", try Self.archive(work), "--origin", "s3://larder/cdn", "--endpoint", "http://127.0.0.1:\(service.port)"],
            environment: Self.environment, watchdog: .seconds(120))
        #expect(outcome.status == 69, "\(name): \(outcome)")
        #expect(outcome.stderr.contains("the answer's headers were larger than 64 KiB"), "\(name): \(outcome.stderr)")
        #expect(!outcome.stderr.contains("Out of memory"), "\(name): \(outcome.stderr)")
        #expect(service.requests.count == 1, "\(name): asked \(service.requests.count) times")
    }
}
