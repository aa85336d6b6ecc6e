import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderS3
import Testing

/// Issue 25: a file above the multipart threshold goes up in parts, completed only where
/// absent; a part that keeps failing aborts the upload.
@Suite struct S3MultipartTests {
    func target(_ s3: S3Fixture) throws -> S3Target {
        var configuration = try S3Configuration(
            origin: s3.origin, endpoint: s3.server.endpoint, region: "us-east-1",
            credentials: S3Credentials(accessKeyID: s3.server.accessKeyID, secretAccessKey: s3.server.secretAccessKey), acl: "public-read")
        configuration.multipartThreshold = 6 << 20
        configuration.partSize = 5 << 20
        configuration.firstRetryPause = .milliseconds(10)
        return S3Target(configuration: configuration)
    }

    /// 12 MiB of bytes that do not repeat by part.
    func bigFile(_ s3: S3Fixture) throws -> (String, Data) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var bytes = [UInt8](repeating: 0, count: 12 << 20)
        for index in bytes.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        let path = s3.work.path + "/big.tar.gz"
        let data = Data(bytes)
        try data.write(to: URL(fileURLWithPath: path))
        return (path, data)
    }

    @Test func aLargeArchiveGoesUpInPartsOnce() throws {
        let s3 = try S3Fixture()
        let target = try target(s3)
        let (file, data) = try bigFile(s3)
        let key = "bundles/\(String(repeating: "c", count: 64)).tar.gz"
        #expect(try target.putIfAbsent(key, from: file, sha256: nil, content: .archive))
        let requests = s3.server.requests
        #expect(requests.contains { $0.hasPrefix("POST /larder/cdn/\(key)?uploads= ") }, "\(requests)")
        #expect(requests.filter { $0.hasPrefix("PUT /larder/cdn/\(key)?partNumber=") && $0.hasSuffix(" 200") }.count == 3, "\(requests)")
        #expect(s3.get(key) == data, "the parts were stored whole and in order")
        let head = try s3.server.anonymousHead("larder/cdn/" + key)
        #expect(head["content-type"] == "application/gzip" && head["cache-control"] == "public, max-age=31536000, immutable", "\(head)")

        try s3.server.clearLog()
        #expect(try target.putIfAbsent(key, from: file, sha256: nil, content: .archive) == false)
        #expect(!s3.server.requests.contains { $0.hasPrefix("POST ") || $0.hasPrefix("PUT ") }, "\(s3.server.requests)")
    }

    @Test func aPartThatKeepsFailingAbortsTheUpload() throws {
        let s3 = try S3Fixture()
        let target = try target(s3)
        let (file, _) = try bigFile(s3)
        let key = "bundles/\(String(repeating: "d", count: 64)).tar.gz"
        try s3.server.fault("500", method: "PUT", contains: key)
        let error = #expect(throws: PublishError.self) { try target.putIfAbsent(key, from: file, sha256: nil, content: .archive) }
        #expect(error?.code == .unavailable, "\(String(describing: error))")
        let requests = s3.server.requests
        #expect(requests.filter { $0.hasSuffix("fault-500") }.count == 5, "one part, five tries: \(requests)")
        #expect(requests.contains { $0.hasPrefix("DELETE /larder/cdn/\(key)?uploadId=") && $0.hasSuffix(" 204") }, "\(requests)")
        #expect(s3.get(key) == nil)
    }
}
