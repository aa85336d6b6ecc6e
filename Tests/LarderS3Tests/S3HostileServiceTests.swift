import Foundation
import LarderFormat
import LarderPack
import LarderPublish
@testable import LarderS3
import LarderSystem
import LarderTestSupport
import Testing

/// Issue 35, items 11 and 12: services that answer as S3 does but do not keep what S3 keeps.
/// A gateway that acknowledges a PUT with an ETag that is not the body's MD5 gets the file
/// again, then a typed error; a service whose ETags change on every read is named for that,
/// not taken for another publisher. The services are FaultOrigin on 127.0.0.1.
@Suite struct S3HostileServiceTests {
    static let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret")

    static func target(_ service: FaultOrigin) throws -> S3Target {
        var configuration = try S3Configuration(
            origin: "s3://bucket/cdn", endpoint: "http://127.0.0.1:\(service.port)", region: "us-east-1", credentials: credentials)
        configuration.attempts = 2
        configuration.firstRetryPause = .milliseconds(10)
        return S3Target(configuration: configuration)
    }

    static func scratch() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("larder-s3-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static let wrongETag = "\"0123456789abcdef0123456789abcdef\""

    /// (the gateway, the PUTs it gets, whether the file is taken as stored)
    @Test(arguments: [("answers every PUT with a wrong ETag", 3, false), ("answers the first PUT with a wrong ETag", 2, true), ("encrypts with SSE-KMS (ETags are no MD5s)", 1, true)])
    func aPUTWhoseETagIsNotTheBodysMD5IsSentAgain(_ gateway: String, _ puts: Int, _ stored: Bool) throws {
        let folder = try Self.scratch()
        defer {
            do { try FileManager.default.removeItem(atPath: folder) } catch { print("could not remove \(folder): \(error)") }
        }
        let bytes = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/object"))
        let digest = SHA256Hasher.hash(bytes)
        let md5 = "\"" + S3ETag.hex(MD5Hasher.hash(bytes)) + "\""
        let count = Locked(0)
        let service = try FaultOrigin { request in
            guard request.method == "PUT" else { return .respond(status: 404, headers: [("x-amz-request-id", "1")], body: []) }
            let put = count.withLock { count -> Int in
                count += 1
                return count
            }
            var headers = [("x-amz-request-id", "\(put)"), ("ETag", gateway.hasPrefix("answers the first") && put > 1 ? md5 : Self.wrongETag)]
            if gateway.hasPrefix("encrypts") { headers.append(("x-amz-server-side-encryption", "aws:kms")) }
            return .respond(status: 200, headers: headers, body: [])
        }
        defer { service.stop() }
        let target = try Self.target(service)
        let path = "objects/" + digest.hex
        if stored {
            #expect(try target.putIfAbsent(path, from: folder + "/object", sha256: digest, content: .object) == true, "\(gateway)")
        } else {
            let error = #expect(throws: PublishError.self, "\(gateway)") {
                try target.putIfAbsent(path, from: folder + "/object", sha256: digest, content: .object)
            }
            #expect(error?.code == .integrity, "\(gateway): \(String(describing: error))")
            #expect(error?.message.contains("not the MD5 of the body sent (\(md5.dropFirst().dropLast()))") == true, "\(String(describing: error))")
            #expect(error?.path == "s3://bucket/cdn/" + path)
        }
        let sent = service.requests.filter { $0.method == "PUT" }
        #expect(sent.count == puts, "\(gateway): \(sent.count) PUTs")
        // The first only where absent; the ones after it over what the service kept.
        #expect(sent.first?.headers["if-none-match"] == "*" && sent.dropFirst().allSatisfy { $0.headers["if-none-match"] == nil }, "\(gateway)")
    }

    /// A service (or a proxy in front) that makes up a new ETag for every read of the same
    /// bytes: every If-Match fails. Three reads tell it, not 25 retries blaming another
    /// publisher.
    @Test func aServiceWhoseETagsChangeOnEveryReadIsNamed() throws {
        let folder = try Self.scratch()
        defer {
            do { try FileManager.default.removeItem(atPath: folder) } catch { print("could not remove \(folder): \(error)") }
        }
        try FileManager.default.createDirectory(atPath: folder + "/source", withIntermediateDirectories: true)
        try Data("<!doctype html><p>etags</p>".utf8).write(to: URL(fileURLWithPath: folder + "/source/index.html"))
        let packed = try Packer.pack(source: folder + "/source", into: folder + "/out")
        let verified = try BundleVerifier.readManifest(from: try ArchiveReader(path: packed.archivePath))
        let manifest = verified.manifest
        var sizes = ["bundles/\(packed.bundleDigest.hex)/manifest.json": verified.bytes.count]
        sizes["bundles/\(packed.bundleDigest.hex).tar.gz"] = try #require(FileManager.default.attributesOfItem(atPath: packed.archivePath)[.size] as? Int)
        for file in manifest.files { sizes["objects/" + file.digest.hex] = Int(file.size) }
        let stored = sizes
        let earlier = SHA256Hasher.hash(Array("an earlier bundle".utf8))
        let document = JourneyDocument(journey: "j", revision: 1, bundle: earlier, refresh: 600, published: "2025-06-01T00:00:00Z")
        let history = JourneyHistory(entries: [JourneyHistory.Entry(revision: 1, bundle: earlier, published: document.published, signer: nil)])
        let files = ["journeys/j.json": document.canonicalBytes, JourneyHistory.path(journey: "j"): history.bytes]
        let reads = Locked(0)
        let service = try FaultOrigin { request in
            let path = String(request.path.dropFirst("/bucket/cdn/".count))
            let id = ("x-amz-request-id", "1")
            switch request.method {
            case "HEAD":
                guard let size = stored[path] else { return .respond(status: 404, headers: [id], body: []) }
                return .respond(status: 200, headers: [id, ("Content-Length", "\(size)"), ("ETag", "\"x\"")], body: [])
            case "GET":
                guard let bytes = files[path] else { return .respond(status: 404, headers: [id], body: Array("<Error><Code>NoSuchKey</Code></Error>".utf8)) }
                let read = reads.withLock { reads -> Int in
                    reads += 1
                    return reads
                }
                return .respond(status: 200, headers: [id, ("ETag", "\"read-\(read)\"")], body: bytes)
            default:
                return .respond(status: 412, headers: [id], body: Array("<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>".utf8))
            }
        }
        defer { service.stop() }
        let failure = #expect(throws: PublishError.self) {
            try OriginPublisher.publish(
                archives: [packed.archivePath], to: try Self.target(service), journey: JourneyPublication(id: "j", key: nil), staging: folder + "/staging")
        }
        let message = failure?.message ?? ""
        #expect(failure?.code == .originUnavailable, "\(String(describing: failure))")
        #expect(message.contains("gave this file a new ETag on each of 3 reads"), "\(message)")
        #expect(message.contains("does not keep ETags as S3 does") && !message.contains("another publisher changed"), "\(message)")
        #expect(service.requests.filter { $0.method == "GET" && $0.path.hasSuffix("journeys/j.json") }.count == 3)
        #expect(!service.requests.contains { $0.method == "PUT" && !$0.path.contains("journeys/") }, "the bundle was whole: nothing else is sent")
    }
}
