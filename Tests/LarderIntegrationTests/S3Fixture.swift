import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// What the S3 publishing tests share: `larder publish` to an ``S3Server``, and reading back
/// what the bucket holds as a device would (anonymously, the files published public-read).
struct S3Fixture {
    let server: S3Server
    let work: Workspace
    let prefix: String

    init(prefix: String = "cdn") throws {
        server = try S3Server()
        work = try Workspace()
        self.prefix = prefix
    }

    var origin: String { "s3://larder/\(prefix)" }
    /// The bucket's HTTP URL devices fetch from.
    var deviceOrigin: String { server.origin(prefix: prefix) }

    /// Runs `larder publish <arguments> --origin s3://… --endpoint … --acl public-read`.
    func publish(_ arguments: [String], environment: [String: String]? = nil, endpoint: String? = nil) async throws -> ProcessOutcome {
        try await LarderProcess.run(
            ["publish"] + arguments + ["--origin", origin, "--endpoint", endpoint ?? server.endpoint, "--acl", "public-read"],
            environment: environment ?? server.environment, watchdog: .seconds(180))
    }

    func start(_ arguments: [String]) throws -> LarderProcess.Running {
        try LarderProcess.start(
            ["publish"] + arguments + ["--origin", origin, "--endpoint", server.endpoint, "--acl", "public-read"], environment: server.environment)
    }

    /// A file of the origin as a device reads it; nil when it is not there.
    func get(_ path: String) -> Data? { server.anonymousGet("larder/\(prefix)/\(path)") }

    /// The journey's document and history as the bucket has them.
    func journey(_ id: String) throws -> (JourneyDocument?, JourneyHistory) {
        let folder = work.path + "/read-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/journeys", withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: folder) } catch { print("could not remove \(folder): \(error)") }
        }
        if let bytes = get("journeys/\(id).json") { try bytes.write(to: URL(fileURLWithPath: folder + "/journeys/\(id).json")) }
        if let bytes = get(JourneyHistory.path(journey: id)) { try bytes.write(to: URL(fileURLWithPath: folder + "/" + JourneyHistory.path(journey: id))) }
        return (try OriginPublisher.currentDocument(journey: id, origin: folder), try JourneyHistory.read(journey: id, origin: folder))
    }

    /// Checks the rule a device relies on: the document points at a bundle whose manifest,
    /// archive and every object are there, each object's bytes hashing to its name.
    func expectDocumentPointsAtACompleteBundle(_ id: String, _ comment: Comment, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        guard let document = try journey(id).0 else { return }
        let manifestBytes = try #require(get("bundles/\(document.bundle.hex)/manifest.json"), "\(comment): no manifest", sourceLocation: sourceLocation)
        #expect(SHA256Hasher.hash([UInt8](manifestBytes)) == document.bundle, "\(comment)", sourceLocation: sourceLocation)
        #expect(get("bundles/\(document.bundle.hex).tar.gz") != nil, "\(comment): no archive", sourceLocation: sourceLocation)
        let manifest = try Manifest(decoding: [UInt8](manifestBytes))
        for file in manifest.files {
            let bytes = try #require(get("objects/\(file.digest.hex)"), "\(comment): \(file.path) missing", sourceLocation: sourceLocation)
            #expect(SHA256Hasher.hash([UInt8](bytes)) == file.digest, "\(comment): \(file.path) stored wrong", sourceLocation: sourceLocation)
        }
    }

    /// The PUT requests of the request log.
    var puts: [String] { server.requests.filter { $0.hasPrefix("PUT ") } }

    /// A small bundle of its own: an HTML page and a stylesheet that differ by `tag`.
    func packSmall(_ tag: String) throws -> String {
        let source = work.path + "/sources/\(tag)"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try Data("<!doctype html><link rel=stylesheet href=style.css><p>\(tag)</p>".utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        try Data(String(repeating: "p { color: #\(tag.count % 10)\(tag.count % 10)0; } /* \(tag) */\n", count: 40).utf8)
            .write(to: URL(fileURLWithPath: source + "/style.css"))
        return try work.pack(source).archivePath
    }
}
