import Foundation
import LarderPublish
@testable import LarderS3
import Testing

/// The rules that turn `--origin s3://…`, `--endpoint` and the environment into requests, and
/// S3's answers into typed errors (the requests themselves are tested against moto in
/// LarderIntegrationTests).
@Suite struct S3ConfigurationTests {
    static let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret")

    @Test(arguments: [
        ("s3://bucket", "bucket", ""), ("s3://bucket/", "bucket", ""), ("s3://my.bucket-1/flows", "my.bucket-1", "flows/"),
        ("s3://bucket/a/b/", "bucket", "a/b/"),
    ])
    func originsNameABucketAndAPrefix(origin: String, bucket: String, prefix: String) throws {
        let configuration = try S3Configuration(origin: origin, endpoint: nil, region: "eu-west-1", credentials: Self.credentials)
        #expect(configuration.bucket == bucket && configuration.prefix == prefix)
        #expect(configuration.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com")
    }

    @Test(arguments: ["s3://", "s3://ab", "s3://Bucket", "s3://bucket//x", "s3://bucket/a/../b", "/srv/origin", "s3://bu_cket"])
    func otherOriginsAreRefused(origin: String) {
        #expect(throws: PublishError.self) { try S3Configuration(origin: origin, endpoint: nil, region: "us-east-1", credentials: Self.credentials) }
    }

    @Test(arguments: ["ftp://host", "http://", "http://host/path", "http://host?x=1", "not a url"])
    func endpointsAreHTTPHosts(endpoint: String) {
        #expect(throws: PublishError.self) { try S3Configuration(origin: "s3://bucket", endpoint: endpoint, region: "us-east-1", credentials: Self.credentials) }
    }

    @Test func pathStyleAndVirtualHostURLs() throws {
        var configuration = try S3Configuration(origin: "s3://bucket/flows", endpoint: "http://127.0.0.1:9000", region: "us-east-1", credentials: Self.credentials)
        #expect(configuration.url(for: "objects/ab") == "http://127.0.0.1:9000/bucket/flows/objects/ab")
        #expect(configuration.url(for: "?list-type=2") == "http://127.0.0.1:9000/bucket/?list-type=2")
        #expect(configuration.name == "s3://bucket/flows")
        configuration.virtualHostAddressing = true
        #expect(configuration.url(for: "journeys/a b.json") == "http://bucket.127.0.0.1:9000/flows/journeys/a%20b.json")
    }

    @Test(arguments: [
        ("objects/\(String(repeating: "a", count: 64))", OriginContent.object, "public, max-age=31536000, immutable", "application/octet-stream"),
        ("objects/\(String(repeating: "a", count: 64)).gz", .compressedObject, "public, max-age=31536000, immutable", "application/octet-stream"),
        ("bundles/\(String(repeating: "b", count: 64)).tar.gz", .archive, "public, max-age=31536000, immutable", "application/gzip"),
        ("bundles/\(String(repeating: "b", count: 64))/manifest.json", .manifest, "public, max-age=31536000, immutable", "application/json"),
        ("journeys/j.history.json", .history, "no-cache", "application/json"),
        ("journeys/j.json", .document, "no-cache", "application/json"),
    ])
    func filesGetTheNginxOriginsHeaders(path: String, content: OriginContent, cacheControl: String, contentType: String) {
        #expect(OriginContent(path: path) == content)
        #expect(content.cacheControl == cacheControl && content.contentType == contentType)
        #expect((content.contentEncoding == "gzip") == (content == .compressedObject))
    }

    @Test func credentialsComeFromTheEnvironmentOrAProfile() throws {
        let token = try S3Credentials.from(environment: ["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S", "AWS_SESSION_TOKEN": "T"])
        #expect(token.accessKeyID == "A" && token.secretAccessKey == "S" && token.sessionToken == "T")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("larder-credentials-\(UUID().uuidString)").path
        try Data("[default]\naws_access_key_id = D\naws_secret_access_key = DS\n\n[ci]\naws_access_key_id=C\naws_secret_access_key=CS\naws_session_token=CT\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        defer { unlink(file) }
        let profile = try S3Credentials.from(environment: ["AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "ci"])
        #expect(profile.accessKeyID == "C" && profile.secretAccessKey == "CS" && profile.sessionToken == "CT")
        let error = #expect(throws: PublishError.self) { try S3Credentials.from(environment: ["AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "none"]) }
        #expect(error?.code == .credentials && error?.message.contains("[none] profile") == true)
    }

    @Test(arguments: [
        (403, "InvalidAccessKeyId", true, PublishError.Code.credentials), (403, "SignatureDoesNotMatch", true, .credentials),
        (403, "AccessDenied", true, .credentials), (400, "ExpiredToken", true, .credentials), (404, "NoSuchBucket", true, .noSuchBucket),
        (301, "PermanentRedirect", true, .credentials), (404, "", false, .notObjectStore), (200, "", false, .notObjectStore),
    ])
    func answersThatMeanAWrongSetup(status: Int, code: String, fromS3: Bool, expected: PublishError.Code) throws {
        let client = S3Client(configuration: try S3Configuration(origin: "s3://bucket", endpoint: "http://127.0.0.1:1", region: "us-east-1", credentials: Self.credentials))
        let body = code.isEmpty ? Array("<html>not found</html>".utf8) : Array("<?xml version=\"1.0\"?><Error><Code>\(code)</Code><Message>m</Message></Error>".utf8)
        let answer = S3Answer(status: status, headers: fromS3 ? ["x-amz-request-id": "1"] : [:], body: body)
        #expect(client.refusal(answer, "GET", "")?.code == expected)
        #expect(client.refusal(S3Answer(status: 404, headers: ["x-amz-request-id": "1"], body: []), "HEAD", "objects/a") == nil)
    }

    @Test(arguments: [(500, "", true), (503, "SlowDown", true), (400, "RequestTimeout", true), (429, "", true), (412, "PreconditionFailed", false), (404, "NoSuchKey", false)])
    func whatIsRetried(status: Int, code: String, retried: Bool) {
        let body = code.isEmpty ? [] : Array("<Error><Code>\(code)</Code></Error>".utf8)
        #expect(S3Client.isWorthRetrying(S3Answer(status: status, headers: [:], body: body)) == retried)
    }
}
