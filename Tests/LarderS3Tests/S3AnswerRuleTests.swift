import Foundation
@testable import LarderS3
import Testing

/// Issue 35: the rules that read an S3 answer's ETag, and keep a password out of an endpoint
/// named in a message (the `s3-answers` fuzz target checks them on hostile input; the head's
/// parser, LarderTransport's ResponseHead, has ResponseHeadTests).
@Suite struct S3AnswerRuleTests {
    static let md5 = "9b2cf535f27731c974343645a3985328"

    /// (ETag, extra header, whether it states an MD5)
    @Test(arguments: [
        ("\"\(md5)\"", nil, true), (md5, nil, true), ("\"\(md5.uppercased())\"", nil, true),
        ("\"\(md5)-3\"", nil, false), ("W/\"\(md5)\"", nil, false), ("\"\(md5.dropLast())\"", nil, false), ("\"\(md5.dropLast())g\"", nil, false),
        ("\"\(md5)\"", ("x-amz-server-side-encryption", "aws:kms"), false), ("\"\(md5)\"", ("x-amz-server-side-encryption", "aws:kms:dsse"), false),
        ("\"\(md5)\"", ("x-amz-server-side-encryption-customer-algorithm", "AES256"), false), ("\"\(md5)\"", ("x-amz-server-side-encryption", "AES256"), true),
    ] as [(String, (String, String)?, Bool)])
    func anETagStatesAnMD5OnlyForOneUnencryptedRequest(_ etag: String, _ header: (String, String)?, _ states: Bool) {
        var headers = ["etag": etag]
        if let header { headers[header.0] = header.1 }
        let stated = S3ETag.statedMD5(S3Answer(status: 200, headers: headers, body: []))
        #expect((stated != nil) == states, "\(etag) \(String(describing: header))")
        if let stated { #expect(S3ETag.hex(stated) == Self.md5) }
    }

    @Test(arguments: [
        ("http://user:pass@host:9000", "http://user:<redacted>@host:9000"), ("https://u:p@h/x?y@z", "https://u:<redacted>@h/x?y@z"),
        ("http://user@host", "http://user@host"), ("http://host", "http://host"), ("user:pass@host", "user:pass@host"),
        ("http://a:b:c@host/path", "http://a:<redacted>@host/path"),
    ])
    func anEndpointsPasswordIsRedacted(_ endpoint: String, _ shown: String) {
        #expect(S3Configuration.redactingUserInfo(endpoint) == shown)
    }

    @Test func anEndpointIsKeptWithoutUserOrPassword() throws {
        let configuration = try S3Configuration(
            origin: "s3://bucket", endpoint: "http://deploy:hunter2pass@127.0.0.1:9000", region: "us-east-1",
            credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret-key"))
        #expect(configuration.endpoint.absoluteString == "http://127.0.0.1:9000")
        #expect(configuration.url(for: "objects/a") == "http://127.0.0.1:9000/bucket/objects/a")
        #expect(configuration.redact("GET http://deploy:hunter2pass@h with secret-key and hunter2pass") == "GET http://deploy:<redacted>@h with <redacted> and <redacted>")
    }
}
