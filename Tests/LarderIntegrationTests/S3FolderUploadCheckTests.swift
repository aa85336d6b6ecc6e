import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// Issue 35, item 4: `publish --from <folder>` sends only what the folder's names say. A
/// symbolic link planted in it (`bundles/<hex>.tar.gz -> ~/.aws/credentials`), a subfolder
/// that is a link, or a regular file that is not the file named gets a typed error naming it,
/// exit 65, and nothing at all is sent: not the file, not the others before it.
@Suite struct S3FolderUploadCheckTests {
    /// How each case plants something in a freshly published origin folder (the bundle's
    /// digest, one of its objects); what the error must name, relative to the folder.
    static let plantings: [(String, @Sendable (String, Digest, String, String) throws -> String)] = [
        ("an archive linked to a secret", { folder, bundle, _, secret in
            let path = "bundles/\(bundle.hex).tar.gz"
            try relink(folder + "/" + path, to: secret)
            return path
        }),
        ("an object linked to a secret", { folder, _, object, secret in
            try relink(folder + "/" + object, to: secret)
            return object
        }),
        ("a manifest linked to a secret", { folder, bundle, _, secret in
            let path = "bundles/\(bundle.hex)/manifest.json"
            try relink(folder + "/" + path, to: secret)
            return path
        }),
        ("a journey document linked to a secret", { folder, _, _, secret in
            try relink(folder + "/journeys/j.json", to: secret)
            return "journeys/j.json"
        }),
        ("the objects folder linked elsewhere", { folder, _, _, _ in
            try FileManager.default.moveItem(atPath: folder + "/objects", toPath: folder + "/../elsewhere")
            try FileManager.default.createSymbolicLink(atPath: folder + "/objects", withDestinationPath: folder + "/../elsewhere")
            return "objects"
        }),
        ("an object whose bytes are another file's", { folder, _, object, secret in
            try FileManager.default.removeItem(atPath: folder + "/" + object)
            try FileManager.default.copyItem(atPath: secret, toPath: folder + "/" + object)
            return object
        }),
        ("a gzip copy that is not of its object", { folder, _, _, secret in
            let copies = try FileManager.default.contentsOfDirectory(atPath: folder + "/objects").filter { $0.hasSuffix(".gz") }.sorted()
            let path = "objects/" + (try #require(copies.first))
            try FileManager.default.removeItem(atPath: folder + "/" + path)
            try CLIShell.run("gzip -c '\(secret)' > '\(folder)/\(path)'")
            return path
        }),
        ("an archive that is another bundle's", { folder, bundle, _, _ in
            let path = "bundles/\(bundle.hex).tar.gz"
            let other = try FileManager.default.contentsOfDirectory(atPath: folder + "/bundles").first { $0.hasSuffix(".tar.gz") && !$0.hasPrefix(bundle.hex) }
            try FileManager.default.removeItem(atPath: folder + "/" + path)
            try FileManager.default.copyItem(atPath: folder + "/bundles/" + (try #require(other)), toPath: folder + "/" + path)
            return path
        }),
    ]

    static func relink(_ path: String, to target: String) throws {
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    @Test func aFolderWithAPlantedLinkOrAFileNotItsNameSendsNothing() async throws {
        let s3 = try S3Fixture(prefix: "moved")
        let secret = s3.work.path + "/credentials"
        let secretText = "[default]\naws_secret_access_key = planted-secret-\(UUID().uuidString)\n"
        try Data(secretText.utf8).write(to: URL(fileURLWithPath: secret))
        let archives = try ["onboarding", "paywall"].map { try s3.work.pack(sampleBundles + "/" + $0) }
        let manifest = try BundleVerifier.readManifest(from: try ArchiveReader(path: archives[0].archivePath)).manifest
        let object = "objects/" + (try #require(manifest.files.first { $0.size > 256 })).digest.hex
        for (index, (name, plant)) in Self.plantings.enumerated() {
            let folder = s3.work.path + "/origin-\(index)/origin"
            for archive in archives {
                _ = try OriginPublisher.publish(archives: [archive.archivePath], to: folder, journey: JourneyPublication(id: "j", key: nil))
            }
            let named = try plant(folder, archives[0].bundleDigest, object, secret)
            try s3.server.clearLog()

            let outcome = try await s3.publish(["--from", folder])

            #expect(outcome.status == 65, "\(name): \(outcome)")
            #expect(outcome.stderr.contains(folder + "/" + named), "\(name): \(outcome.stderr)")
            #expect(s3.puts.isEmpty, "\(name): sent \(s3.puts.prefix(3))")
            #expect(!outcome.stderr.contains("planted-secret"), "\(name): \(outcome.stderr)")
        }
    }
}

/// A shell command for a test's setup.
enum CLIShell {
    static func run(_ command: String) throws {
        _ = try Origin.shell(["/bin/sh", "-c", command])
    }
}
