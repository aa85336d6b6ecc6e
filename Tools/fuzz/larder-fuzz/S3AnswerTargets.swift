import Foundation
import LarderPublish
import LarderS3
import LarderTransport

/// What an S3 service (or anything answering as one) sends back, as LarderS3 reads it: the
/// header lines (LarderTransport's ``ResponseHead``), the ETag (``S3ETag``), the XML values of
/// error documents, `InitiateMultipartUploadResult` and the listings (``S3Answer/element(_:in:)``), and the
/// typed errors made of them (``S3Client/refusal(_:_:_:)``, ``S3Client/unexpected(_:_:_:)``).
///
/// Input: header lines, a blank line (`\r\n\r\n` or `\n\n`), then the body. The client's
/// secret key, session token and endpoint password are in the dictionary, so the fuzzer
/// plants them where a service would echo them.
enum S3AnswerTargets {
    static let secret = "fuzzSecretKey/0123456789+abcdefABCDEF"
    static let token = "FQoGZXIvYXdzEJr//////////wEaDFuzzToken+xyz="
    static let password = "fuzz-endpoint-pass"
    /// The most characters a typed error made of one answer has: the service's words are cut
    /// to 300 characters each (``S3Configuration/quoted(_:)``), the rest is Larder's.
    static let messageBound = 2_048

    static let client: S3Client = {
        do {
            let configuration = try S3Configuration(
                origin: "s3://bucket/prefix", endpoint: "http://user:\(password)@127.0.0.1:9", region: "us-east-1",
                credentials: S3Credentials(accessKeyID: "AKIAFUZZ", secretAccessKey: secret, sessionToken: token))
            return S3Client(configuration: configuration)
        } catch {
            fatalError("the fuzz target's configuration is refused: \(error)")
        }
    }()

    static let answers = FuzzTarget(
        name: "s3-answers",
        summary: "ResponseHead, S3Answer.element, S3ETag, S3Client's errors; bounded head, fields print back, XML values round-trip, no secret in a message",
        maximumLength: 16 << 10,
        run: { bytes in
            let (headBytes, body) = split(Array(bytes))
            var head = ResponseHead()
            var refused = false
            for line in lines(headBytes) {
                let before = (head.status, head.fields, head.bytes)
                let added = line.withUnsafeBytes { head.add($0) } != nil
                require(added || (head.status == before.0 && head.fields == before.1 && head.bytes == before.2), "a refused line changed the head")
                require(!refused || !added, "a line was taken after one was refused")
                refused = refused || !added
                require(head.bytes <= ResponseHead.maximumBytes, "the head holds \(head.bytes) bytes")
            }
            checkFieldsPrintBack(head)
            let answer = S3Answer(status: head.status, headers: head.fields, body: body)
            checkElements(answer)
            checkETag(answer)
            checkMessages(answer)
        },
        seeds: { seeds })

    // MARK: Invariants

    /// The fields, printed as lines again, parse to themselves.
    static func checkFieldsPrintBack(_ head: ResponseHead) {
        var again = ResponseHead()
        let lines = ["HTTP/1.1 \(head.status) X\r\n"] + head.fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" } + ["\r\n"]
        for line in lines {
            let added = Array(line.utf8).withUnsafeBytes { again.add($0) } != nil
            guard added else { return }  // printing may exceed the bound the input kept to
        }
        require(again.status == head.status, "status \(head.status) reads back as \(again.status)")
        require(again.fields == head.fields, "the fields \(head.fields) read back as \(again.fields)")
    }

    /// A value found never runs past its closing tag, is found again in a document of its own,
    /// and an error document made of the values found reads back to them.
    static func checkElements(_ answer: S3Answer) {
        var values: [String: String] = [:]
        for name in ["Code", "Message", "UploadId", "Key", "ETag", "IsTruncated", "NextContinuationToken", "RequestId", "HostId"] {
            guard let value = S3Answer.element(name, in: answer.body) else { continue }
            let close = Array("</\(name)>".utf8)
            let bytes = Array(value.utf8)
            require(S3Answer.offset(of: close, in: bytes, from: 0, to: bytes.count) == nil, "the value of <\(name)> runs past its end")
            require(value.utf8.count <= S3Answer.scannedBytes * 3, "a value of \(value.utf8.count) bytes")  // each byte at most one U+FFFD
            let alone = Array("<\(name)>\(value)</\(name)>".utf8)
            require(S3Answer.element(name, in: alone) == value || alone.count > S3Answer.scannedBytes, "<\(name)>\(value)</\(name)> reads otherwise")
            values[name] = value
        }
        guard let code = values["Code"], let message = values["Message"], !(code + message).contains("<") else { return }
        let document = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\(code)</Code><Message>\(message)</Message></Error>".utf8)
        let reread = S3Answer(status: answer.status, headers: [:], body: document)
        require(reread.errorCode == code && reread.errorMessage == message, "the error document made of '\(code)', '\(message)' reads back otherwise")
    }

    /// An ETag that states an MD5 is 32 hex digits, which print back as it.
    static func checkETag(_ answer: S3Answer) {
        guard let md5 = S3ETag.statedMD5(answer), let etag = answer.etag else { return }
        require(md5.count == 16, "an MD5 of \(md5.count) bytes")
        var text = etag.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        require(S3ETag.hex(md5) == text.lowercased(), "ETag \(etag) states \(S3ETag.hex(md5))")
        require(!(answer.headers["x-amz-server-side-encryption"]?.lowercased().hasPrefix("aws:kms") ?? false), "an SSE-KMS ETag taken for an MD5")
    }

    /// The secrets as given and percent-encoded, as bytes.
    static let hiddenUTF8: [[UInt8]] = ([secret, token, password] + [secret, token].map { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0 })
        .map { Array($0.utf8) }

    /// The errors made of the answer are bounded and never show a secret.
    static func checkMessages(_ answer: S3Answer) {
        let errors = [client.refusal(answer, "GET", "journeys/j.json"), client.unexpected(answer, "PUT", "objects/x")].compactMap { $0 }
        _ = S3Client.isWorthRetrying(answer)
        for error in errors {
            let text = Array(error.description.utf8)
            for hidden in hiddenUTF8 {
                require(S3Answer.offset(of: hidden, in: text, from: 0, to: text.count) == nil, "a secret reached a message: \(error.description.prefix(400))")
            }
            require(error.description.count <= messageBound, "a message of \(error.description.count) characters")
        }
    }

    // MARK: Input

    static func split(_ bytes: [UInt8]) -> (head: [UInt8], body: [UInt8]) {
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            let rest = bytes[(index + 1)...]
            if rest.starts(with: [UInt8(ascii: "\n")]) { return (Array(bytes[...(index + 1)]), Array(bytes[(index + 2)...])) }
            if rest.starts(with: Array("\r\n".utf8)) { return (Array(bytes[...(index + 2)]), Array(bytes[(index + 3)...])) }
        }
        return (bytes, [])
    }

    /// The lines of a head, each with its `\n`, as libcurl passes them.
    static func lines(_ head: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var start = 0
        for (index, byte) in head.enumerated() where byte == UInt8(ascii: "\n") {
            lines.append(Array(head[start...index]))
            start = index + 1
        }
        if start < head.count { lines.append(Array(head[start...])) }
        return lines
    }

    // MARK: Seeds

    static let seeds: [[UInt8]] = [
        answer(["HTTP/1.1 404 Not Found", "x-amz-request-id: 4442587FB7D0A2F9", "Content-Type: application/xml"],
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>prefix/journeys/j.json</Key><RequestId>4442587FB7D0A2F9</RequestId><HostId>eftixk72aD6Ap51TnqcoF8eFidJG9Z/2mkiDFu8yU9AS1ed4OpIszj7UDNEHGran</HostId></Error>"),
        answer(["HTTP/1.1 403 Forbidden", "x-amz-request-id: 1"],
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InvalidToken</Code><Message>The provided token is malformed or otherwise invalid.</Message><Token-0>\(token)</Token-0></Error>"),
        answer(["HTTP/1.1 403 Forbidden", "x-amz-request-id: 2"],
            "<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key \(secret) and signing method.</Message><AWSAccessKeyId>AKIAFUZZ</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256\n20250601T000000Z</StringToSign></Error>"),
        answer(["HTTP/1.1 503 Slow Down", "x-amz-request-id: 3"], "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"),
        answer(["HTTP/1.1 412 Precondition Failed", "x-amz-request-id: 4"], "<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-Match</Condition></Error>"),
        answer(["HTTP/1.1 301 Moved Permanently", "x-amz-bucket-region: eu-west-1"], "<Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint.</Message><Endpoint>bucket.s3.eu-west-1.amazonaws.com</Endpoint></Error>"),
        answer(["HTTP/1.1 200 OK", "x-amz-request-id: 5", "Content-Type: application/xml"],
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>bucket</Name><Prefix></Prefix><KeyCount>1</KeyCount><MaxKeys>1</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken><Contents><Key>prefix/objects/ab</Key><LastModified>2025-06-01T00:00:00.000Z</LastModified><ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>1024</Size><StorageClass>STANDARD</StorageClass></Contents></ListBucketResult>"),
        answer(["HTTP/1.1 200 OK", "x-amz-request-id: 6"],
            "<ListBucketResult><Name>bucket</Name><Prefix>prefix/</Prefix><Marker></Marker><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated><Contents><Key>prefix/bundles/x.tar.gz</Key><ETag>\"a0b1-3\"</ETag><Size>99</Size></Contents></ListBucketResult>"),
        answer(["HTTP/1.1 200 OK", "x-amz-request-id: 7"],
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<InitiateMultipartUploadResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Bucket>bucket</Bucket><Key>prefix/objects/ab</Key><UploadId>VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA</UploadId></InitiateMultipartUploadResult>"),
        answer(["HTTP/1.1 200 OK", "x-amz-request-id: 8"],
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<CompleteMultipartUploadResult><Location>http://127.0.0.1/bucket/prefix/objects/ab</Location><Bucket>bucket</Bucket><Key>prefix/objects/ab</Key><ETag>\"3858f62230ac3c915f300c664312c11f-9\"</ETag></CompleteMultipartUploadResult>"),
        answer(["HTTP/1.1 200 OK", "x-amz-request-id: 9"], "<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>"),
        answer(["HTTP/1.1 100 Continue", "", "HTTP/1.1 200 OK", "ETag: \"d41d8cd98f00b204e9800998ecf8427e\"", "x-amz-request-id: 10"], ""),
        answer(["HTTP/1.1 200 OK", "ETag: \"9B2CF535F27731C974343645A3985328\"", "x-amz-server-side-encryption: aws:kms", "x-amz-request-id: 11"], ""),
        answer(["HTTP/1.1 200 OK", "ETag: W/\"9b2cf535f27731c974343645a3985328\"", "Content-Length: 0"], ""),
        answer(["HTTP/1.1 200 OK", "ETag: 9b2cf535f27731c974343645a3985328", "x-amz-server-side-encryption-customer-algorithm: AES256"], ""),
        answer(["HTTP/1.1 502 Bad Gateway", "Server: nginx", "Set-Cookie: session=\(token)"], "<html><body>Bad Gateway for http://user:\(password)@127.0.0.1:9/</body></html>"),
        // Services that echo what they were sent into what Larder quotes.
        answer(["HTTP/1.1 403 Forbidden", "x-amz-request-id: 12"], "<Error><Code>AccessDenied</Code><Message>Access Denied for token \(token)</Message></Error>"),
        answer(
            ["HTTP/1.1 400 Bad Request", "x-amz-request-id: 13"],
            "<Error><Code>InvalidArgument</Code><Message>Bad x-amz-security-token: \(token), signed with fuzzSecretKey%2F0123456789%2BabcdefABCDEF for http://user:\(password)@127.0.0.1:9</Message></Error>"),
        answer(["HTTP/1.1 400 Bad Request", "x-amz-request-id: 14"], "<Error><Code>\(password)</Code><Message>\(secret)</Message></Error>"),
    ]

    static func answer(_ head: [String], _ body: String) -> [UInt8] {
        Array((head.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }
}
