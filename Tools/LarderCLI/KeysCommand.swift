import Foundation
import LarderFormat
import LarderSystem
import LarderPublish

/// `larder keys generate <name>`: a publisher's Ed25519 key pair for signing journey
/// documents; `larder keys grant|revoke|list --origin <folder>`: the publishable keys an origin
/// lets read its journeys.
enum KeysCommand {
    static let spec = CommandSpec(
        name: "keys",
        overview: "Generate signing keys; grant, revoke and list an origin's publishable keys.",
        usage: """
            larder keys generate <name> [--out <folder>] [--json]
                   larder keys grant <publishable-key> --journey <id> --origin <folder>
                   larder keys revoke <publishable-key> --origin <folder>
                   larder keys list --origin <folder> [--json]
            """,
        arguments: [
            ("<name>", "generate: the key's name: <name>.pem (private, mode 0600) and <name>.pub (public) are written."),
            ("<publishable-key>", "grant, revoke: the key apps send as X-Larder-Key."),
        ],
        options: [
            OptionSpec(names: ["--out"], value: "folder", help: "generate: where to write the two files (default: the current folder; created, mode 0700, when missing)."),
            OptionSpec(names: ["--origin"], value: "folder", help: "grant, revoke, list: the origin folder 'larder publish' writes."),
            OptionSpec(names: ["--journey"], value: "id", help: "grant: the journey the key may read."),
            OptionSpec(names: ["--json"], value: nil, help: "Print the result as JSON."),
        ],
        discussion: """
            grant, revoke and list edit or read access/keys.map and access/grants.map. Each map
            is replaced whole through a temporary file and a rename, so nginx never reads half
            of one; it reads them when it (re)loads: run 'Tools/origin/origin.sh reload
            <run-dir>' after a change, and a revoked key gets 401 from its next request.

            The signing private key is PKCS #8 PEM, unencrypted, created readable by its owner only;
            keep it where you build releases ('larder publish --sign <name>.pem'). The public
            key is one line, ed25519:<base64>, for apps ('JourneyConfiguration.trustedKeys',
            'larder journey --trust <name>.pub'). Its id, the first 16 hex digits of its SHA-256,
            is what signed documents name. An existing file is never overwritten.

            Publishable keys are the nginx origin's: a bucket cannot check X-Larder-Key, so grant,
            revoke and list refuse an s3:// origin. Gate journeys/ at the CDN in front of the
            bucket instead (Docs/Buckets.md).

            EXIT STATUS: 0 done, 64 usage error (an s3:// origin among them), 65 a map is damaged, 66 no such origin folder
            (revoke: no such key), 73 a file exists or cannot be written.
            """)

    static let subcommandNames = ["generate", "grant", "revoke", "list"]

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 1...2) } catch {
            return Console.usageError(error)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        let subcommand = parsed.positionals[0]
        let expected = subcommand == "list" ? 1 : 2
        guard subcommandNames.contains(subcommand) else {
            return Console.usageError(
                UsageError(message: "Unknown subcommand '\(subcommand)'" + ClosestName.hint(subcommand, among: subcommandNames), command: spec))
        }
        guard parsed.positionals.count == expected else {
            return Console.usageError(
                UsageError(
                    message: expected == 1 ? "Unexpected argument '\(parsed.positionals[1])'" : "Missing expected argument", command: spec))
        }
        if subcommand != "generate" { return access(subcommand, parsed) }
        let name = parsed.positionals[1]
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            return Console.usageError(UsageError(message: "Invalid '<name>': '\(name)' must be a file name", command: spec))
        }
        let folder = parsed.value("--out") ?? "."
        let privatePath = folder + "/" + name + ".pem"
        let publicPath = folder + "/" + name + ".pub"
        if let existing = [privatePath, publicPath].first(where: { FileManager.default.fileExists(atPath: $0) }) {
            Console.failure("\(shown(existing)): exists already; keys are never overwritten")
            return .cannotCreate
        }
        // A folder made for keys is its owner's alone.
        do throws(Folder.CreationError) { try Folder.createPath(folder, permissions: 0o700) } catch {
            let why = error.errno == .notAFolder ? "the key folder is under a file: \(error.path) is not a folder" : "cannot create \(error.path): \(error.errno)"
            Console.failure("\(shown(why))")
            return .cannotCreate
        }
        do {
            let key = try SigningKey.generate()
            try KeyFile.create(privatePath, bytes: try key.pem(), mode: 0o600)
            try KeyFile.create(publicPath, bytes: Array((key.publicKey.description + "\n").utf8), mode: 0o644)
            if parsed.flag("--json") {
                Console.json(.object([
                    "publicKey": .string(key.publicKey.description), "keyID": .string(key.publicKey.id),
                    "private": .string(privatePath), "public": .string(publicPath),
                ]))
            } else {
                Console.out("wrote \(shown(privatePath)) (private, 0600) and \(shown(publicPath))")
                Console.out("public key \(key.publicKey) (id \(key.publicKey.id))")
            }
            return .success
        } catch {
            Console.failure("\(shown(error))")
            return .cannotCreate
        }
    }
}

extension KeysCommand {
    /// Why there are no access maps in a bucket, and what to do instead.
    static let s3Refusal = """
        a bucket cannot check the X-Larder-Key header, so publishable keys cannot be granted there. \
        Gate journeys/ at the CDN in front of the bucket (an edge rule that checks X-Larder-Key against your keys, \
        or signed URLs), or publish to a folder served by the nginx origin (Tools/origin); see Docs/Buckets.md
        """

    /// `grant`, `revoke` and `list`.
    static func access(_ subcommand: String, _ parsed: ParsedArguments) -> ExitCode {
        guard let origin = parsed.value("--origin") else {
            return Console.usageError(UsageError(message: "Missing '--origin <folder>'", command: spec))
        }
        if origin.hasPrefix("s3://") {
            Console.failure("\(shown(origin)): \(s3Refusal)")
            return .usage
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: origin, isDirectory: &isFolder), isFolder.boolValue else {
            Console.failure("\(shown(origin)): no such origin folder")
            return .noInput
        }
        let maps = AccessMaps(origin: origin)
        let key = parsed.positionals.dropFirst().first ?? ""
        if subcommand != "list", !JourneyPublication.isValidName(key) {
            return Console.usageError(UsageError(message: "Invalid '<publishable-key>': '\(key)' may use only letters, digits, '_', '-' and '.'", command: spec))
        }
        do {
            switch subcommand {
            case "grant":
                guard let journey = parsed.value("--journey"), JourneyPublication.isValidJourneyID(journey) else {
                    return Console.usageError(UsageError(message: "grant needs a valid '--journey <id>'", command: spec))
                }
                let changed = try maps.grant(key, journey: journey)
                Console.out(changed.isEmpty ? "\(shown(key)) could already read \(shown(journey))" : "granted \(shown(key)) journey \(shown(journey)); reload the origin")
            case "revoke":
                let changed = try maps.revoke(key)
                guard !changed.isEmpty else {
                    Console.failure("\(shown(origin)): no key '\(shown(key))' to revoke")
                    return .noInput
                }
                Console.out("revoked \(shown(key)); reload the origin")
            default:
                let keys = try maps.list()
                if parsed.flag("--json") {
                    Console.json(.object(keys.mapValues { .array($0.sorted().map { .string($0) }) }))
                } else {
                    for (key, journeys) in keys.sorted(by: { $0.key < $1.key }) {
                        Console.out("\(shown(key))  \(journeys.isEmpty ? "(no journeys)" : shown(journeys.sorted().joined(separator: " ")))")
                    }
                }
            }
            return .success
        } catch {
            Console.failure("\(shown(error))")
            return error.code == .io || error.code == .noSpace ? .cannotCreate : .dataError
        }
    }
}

/// Creating key files: never over an existing file, with the mode set at creation (a private
/// key is never readable by others, not even for a moment), complete or not at all.
enum KeyFile {
    static func create(_ path: String, bytes: [UInt8], mode: mode_t) throws(FormatError) {
        let folder = (path as NSString).deletingLastPathComponent
        let output = try AtomicFileWriter(folder: folder.isEmpty ? "." : folder, prefix: (path as NSString).lastPathComponent, mode: mode)
        try FormatError.typed { try bytes.withUnsafeBytes { try output.write($0) } }
        try output.commit(to: path, replacing: false)
    }
}
