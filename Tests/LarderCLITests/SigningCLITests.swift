import Foundation
import LarderFormat
import LarderTestSupport
import Testing

/// `larder keys`, `larder publish --sign/--rollout/--rollback` and `--trust`: what a publisher
/// gets wrong is a clear error with its own exit status, and key files are never lost.
@Suite struct SigningCLITests {
    @Test(arguments: [
        (["publish", "a.tar.gz", "--origin", "o", "--journey", "j", "--rollback"], "Error: --rollback takes no archive"),
        (["publish", "--origin", "o", "--journey", "j"], "Error: Missing expected argument '<archive>...'"),
        (["publish", "a.tar.gz", "--origin", "o", "--journey", "j", "--to", "2"], "Error: --to goes with --rollback"),
        (["publish", "--origin", "o", "--rollback"], "Error: --rollback needs --journey and takes no --key"),
        (["publish", "--origin", "o", "--journey", "j", "--rollback", "--to", "zero"], "Error: --to must be a revision number"),
        (["publish", "a.tar.gz", "--origin", "o", "--journey", "j", "--rollout", "0"], "Error: --rollout must be a percentage from 1 to 100, without --rollback"),
        (["publish", "a.tar.gz", "--origin", "o", "--sign", "k.pem"], "Error: --key, --refresh, --sign and --rollout go with --journey"),
        (["publish", "a.tar.gz", "--origin", "o", "--journey", "j", "--expires-in", "1d"], "Error: --expires-in goes with --sign"),
        (["keys", "make", "x"], "Error: Unknown subcommand 'make'"),
        (["keys", "generate"], "Error: Missing expected argument"),
        (["keys", "generate", "a/b"], "Error: Invalid '<name>': 'a/b' must be a file name"),
        (["keys", "list", "extra"], "Error: Unexpected argument 'extra'"),
        (["keys", "revoke", "pk"], "Error: Missing '--origin <folder>'"),
        (["keys", "grant", "pk", "--journey", "paywall.history", "--origin", "/tmp"], "Error: grant needs a valid '--journey <id>'"),
        (["journey", "prepare", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--trust", "ed25519:AAAA"],
         "Error: Invalid '--trust <public-key>': 'ed25519:AAAA': an Ed25519 public key has 32 bytes, not 3"),
        (["journey", "prepare", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--trust", "/nonexistent.pub"],
         "Error: Invalid '--trust <public-key>': '/nonexistent.pub' is neither ed25519:<base64> nor a readable key file"),
    ])
    func usageErrorsExit64(_ arguments: [String], _ message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == message, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func generatedKeysArePrivateNeverOverwrittenAndUsableForSigning() throws {
        let scratch = try Scratch()
        let generated = try CLI.run(["keys", "generate", "release", "--out", scratch.path, "--json"])
        #expect(generated.status == 0, "\(generated)")
        let pem = scratch.path + "/release.pem"
        let attributes = try FileManager.default.attributesOfItem(atPath: pem)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let key = try SigningKey(pem: [UInt8](try Data(contentsOf: URL(fileURLWithPath: pem))))
        let text = try String(contentsOfFile: scratch.path + "/release.pub", encoding: .utf8)
        #expect(try PublicKey(text: text) == key.publicKey)
        #expect(generated.stdout.contains(#""keyID":"\#(key.publicKey.id)""#))

        let before = try Data(contentsOf: URL(fileURLWithPath: pem))
        let again = try CLI.run(["keys", "generate", "release", "--out", scratch.path])
        #expect(again.status == 73 && again.stderr.contains("exists already; keys are never overwritten"), "\(again)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: pem)) == before)
        // Only the public half there: still refused, nothing half-made.
        try FileManager.default.removeItem(atPath: pem)
        let half = try CLI.run(["keys", "generate", "release", "--out", scratch.path])
        #expect(half.status == 73)
        #expect(!FileManager.default.fileExists(atPath: pem))
        let newFolder = try CLI.run(["keys", "generate", "x", "--out", scratch.path + "/new/keys"])
        #expect(newFolder.status == 0, "\(newFolder)")
        let folderMode = try FileManager.default.attributesOfItem(atPath: scratch.path + "/new/keys")[.posixPermissions] as? NSNumber
        #expect(folderMode?.intValue == 0o700)
        try Data().write(to: URL(fileURLWithPath: scratch.path + "/file"))
        let underAFile = try CLI.run(["keys", "generate", "x", "--out", scratch.path + "/file/keys"])
        #expect(underAFile.status == 73, "\(underAFile)")
    }

    @Test func aKeyFileThatIsNotAPrivateKeyOrIsMissingIsRefusedBeforeAnythingIsWritten() throws {
        let scratch = try Scratch()
        let archive = try CLI.run(["pack", sampleBundles + "/legacy-prompt", "-o", scratch.path, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(archive.stdout.utf8)) as? [String: Any])
        let path = try #require(report["archivePath"] as? String)
        try Data("ed25519:AAAA\n".utf8).write(to: URL(fileURLWithPath: scratch.path + "/public.pub"))
        let wrong = try CLI.run(["publish", path, "--origin", scratch.path + "/origin", "--journey", "j", "--sign", scratch.path + "/public.pub"])
        #expect(wrong.status == 65 && wrong.stderr.contains("not a PEM private key"), "\(wrong)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/origin"))
        let missing = try CLI.run(["publish", path, "--origin", scratch.path + "/origin", "--journey", "j", "--sign", scratch.path + "/none.pem"])
        #expect(missing.status == 66, "\(missing)")
        #expect(mkfifo(scratch.path + "/fifo.pem", 0o600) == 0)
        let fifo = try CLI.run(["publish", path, "--origin", scratch.path + "/origin", "--journey", "j", "--sign", scratch.path + "/fifo.pem"])
        #expect(fifo.status == 66 && fifo.stderr.contains("not a regular file (a FIFO)"), "\(fifo)")
        let trust = try CLI.run([
            "journey", "status", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--trust", scratch.path + "/fifo.pem",
        ])
        #expect(trust.status == 64, "\(trust)")
        let rollback = try CLI.run(["publish", "--origin", scratch.path + "/origin", "--journey", "j", "--rollback"])
        #expect(rollback.status == 65 && rollback.stderr.contains("was never published"), "\(rollback)")
    }
}

extension SigningCLITests {
    @Test func aRollbackWithItsBundleGoneOrADamagedHistoryIsRefusedAndChangesNothing() throws {
        let scratch = try Scratch()
        var paths: [String] = []
        for sample in ["legacy-prompt", "paywall"] {
            let packed = try CLI.run(["pack", sampleBundles + "/" + sample, "-o", scratch.path, "--json"])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(packed.stdout.utf8)) as? [String: Any])
            paths.append(try #require(report["archivePath"] as? String))
        }
        let origin = scratch.path + "/origin"
        for path in paths { #expect(try CLI.run(["publish", path, "--origin", origin, "--journey", "j"]).status == 0) }
        let document = origin + "/journeys/j.json"
        let before = try Data(contentsOf: URL(fileURLWithPath: document))

        // The earlier bundle's manifest was removed from the origin.
        let first = (paths[0] as NSString).lastPathComponent.replacingOccurrences(of: ".tar.gz", with: "")
        try FileManager.default.removeItem(atPath: origin + "/bundles/\(first)/manifest.json")
        let gone = try CLI.run(["publish", "--origin", origin, "--journey", "j", "--rollback"])
        #expect(gone.status == 65 && gone.stderr.contains("is no longer on the origin"), "\(gone)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: document)) == before)

        // The history is not a history.
        try Data("{\"not\": \"a list\"}".utf8).write(to: URL(fileURLWithPath: origin + "/journeys/j.history.json"))
        let damaged = try CLI.run(["publish", "--origin", origin, "--journey", "j", "--rollback"])
        #expect(damaged.status == 65 && damaged.stderr.contains("a journey history is a JSON array"), "\(damaged)")
        let listed = try CLI.run(["journey", "history", "--origin", origin, "--journey", "j"])
        #expect(listed.status == 65, "\(listed)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: document)) == before)
    }
}

/// Issue 20: what a publisher's edge cases do to trust. A degenerate key is refused when
/// parsed; revision arithmetic never traps.
extension SigningCLITests {
    @Test func aTrustedKeyOfSmallOrderIsAUsageError() throws {
        let scratch = try Scratch()
        let zero = "ed25519:" + Data(count: 32).base64EncodedString()
        try Data((zero + "\n").utf8).write(to: URL(fileURLWithPath: scratch.path + "/zero.pub"))
        for trust in [zero, scratch.path + "/zero.pub"] {
            let result = try CLI.run([
                "journey", "prepare", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--cache", scratch.path + "/cache",
                "--trust", trust,
            ])
            #expect(result.status == 64, "\(result)")
            #expect(result.stderr.hasPrefix("Error: Invalid '--trust <public-key>': '\(trust)': "), "\(result.stderr)")
            #expect(result.stderr.contains("small order"), "\(result.stderr)")
        }
    }

    @Test func publishingAfterTheLastRevisionThereIsIsATypedError() throws {
        let scratch = try Scratch()
        var paths: [String] = []
        for sample in ["legacy-prompt", "paywall"] {
            let packed = try CLI.run(["pack", sampleBundles + "/" + sample, "-o", scratch.path, "--json"])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(packed.stdout.utf8)) as? [String: Any])
            paths.append(try #require(report["archivePath"] as? String))
        }
        let origin = scratch.path + "/origin"
        #expect(try CLI.run(["publish", paths[0], "--origin", origin, "--journey", "j"]).status == 0)
        #expect(try CLI.run(["publish", paths[1], "--origin", origin, "--journey", "j"]).status == 0)
        // The origin's document (which a device accepts) is at the highest revision there is.
        let path = origin + "/journeys/j.json"
        var document = try JourneyDocument(decoding: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        document.revision = .max
        try Data(document.canonicalBytes).write(to: URL(fileURLWithPath: path))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let history = try Data(contentsOf: URL(fileURLWithPath: origin + "/journeys/j.history.json"))
        for arguments in [["publish", paths[0], "--origin", origin, "--journey", "j"], ["publish", "--origin", origin, "--journey", "j", "--rollback"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 65, "\(arguments): \(result)")
            #expect(result.stderr.contains("revision 9223372036854775807"), "\(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try Data(contentsOf: URL(fileURLWithPath: origin + "/journeys/j.history.json")) == history)
        }
    }
}
