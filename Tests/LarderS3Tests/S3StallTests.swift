import Foundation
import LarderPublish
@testable import LarderS3
import LarderTestSupport
import Testing

/// A service that stops answering, drips, lies about sizes or never ends: each request ends by
/// itself (the stall and request limits), is tried again a bounded number of times, and the
/// publish gets a typed error saying what happened. The services are FaultOrigin on 127.0.0.1.
@Suite struct S3StallTests {
    static let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret")

    /// A client of `origin` with a 1 s stall limit, 4 s per request and 2 attempts.
    static func client(_ origin: FaultOrigin) throws -> S3Client {
        var configuration = try S3Configuration(
            origin: "s3://bucket/cdn", endpoint: "http://127.0.0.1:\(origin.port)", region: "us-east-1", credentials: credentials)
        configuration.stallTimeout = .seconds(1)
        configuration.timeout = .seconds(4)
        configuration.attempts = 2
        configuration.firstRetryPause = .milliseconds(10)
        return S3Client(configuration: configuration)
    }

    /// What each kind of service does, and what the error then says.
    static let services: [String: (answer: FaultOrigin.Answer, says: String)] = [
        "never answers": (.readAndNeverAnswer, "too slow"),
        "never reads the request": (.acceptAndNeverRead, "too slow"),
        "stalls after its headers": (.headersThenStall(status: 200, headers: [("x-amz-request-id", "1")], contentLength: 1000), "too slow"),
        "drips its answer": (.drip(status: 200, headers: [], body: Array(repeating: 0x20, count: 1 << 20), bytesPerSecond: 2), "timed out"),
        "sends an answer without end": (.endless(status: 200, headers: [("x-amz-request-id", "1")]), "longer than 8 mib"),
        "closes mid-answer": (.raw(head: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", body: Array("<Error>".utf8), close: true), "transfer closed"),
    ]

    @Test(arguments: services.keys.sorted())
    func aServiceThatMisbehavesEndsInAConnectionError(_ name: String) throws {
        let (answer, says) = try #require(Self.services[name])
        let origin = try FaultOrigin { _ in answer }
        defer { origin.stop() }
        let client = try Self.client(origin)
        let started = ContinuousClock.now
        let error = #expect(throws: PublishError.self) { try client.send("GET", "journeys/j.history.json") }
        let elapsed = ContinuousClock.now - started
        #expect(error?.code == .connection, "\(name): \(String(describing: error))")
        #expect(error?.message.lowercased().contains(says) == true, "\(name): \(error?.message ?? "")")
        #expect(error?.message.contains("2 attempts") == true, "\(name): \(error?.message ?? "")")
        #expect(origin.requests.count == 2, "\(name): tried \(origin.requests.count) times")
        // Two attempts of at most 4 s each, and a pause: not the 5 x 300 s of the defaults.
        #expect(elapsed < .seconds(30), "\(name): \(elapsed)")
    }

    /// A slow service is not a stalled one: an answer that takes longer than the stall limit in
    /// all, but keeps moving, arrives.
    @Test func aSlowButMovingAnswerArrives() throws {
        let body = Array("<ListBucketResult></ListBucketResult>".utf8)
        let origin = try FaultOrigin { _ in .drip(status: 200, headers: [("x-amz-request-id", "1")], body: body, bytesPerSecond: 20) }
        defer { origin.stop() }
        let answer = try Self.client(origin).send("GET", "")
        #expect(answer.status == 200)
        #expect(answer.body == body)
        #expect(origin.requests.count == 1)
    }
}
