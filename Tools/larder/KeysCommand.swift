import Foundation
import LarderFormat

/// `larder keys generate <name>`: a publisher's Ed25519 key pair for signing journey documents.
enum KeysCommand {
    static let spec = CommandSpec(
        name: "keys",
        overview: "Generate the Ed25519 key pair a publisher signs journey documents with.",
        usage: "larder keys generate <name> [--out <folder>] [--json]",
        arguments: [("<name>", "The key's name: <name>.pem (private, mode 0600) and <name>.pub (public) are written.")],
        options: [
            OptionSpec(names: ["--out"], value: "folder", help: "Where to write the two files (default: the current folder)."),
            OptionSpec(names: ["--json"], value: nil, help: "Print the public key and its id as JSON."),
        ],
        discussion: """
            The private key is PKCS #8 PEM, unencrypted, created readable by its owner only;
            keep it where you build releases ('larder publish --sign <name>.pem'). The public
            key is one line, ed25519:<base64>, for apps ('JourneyConfiguration.trustedKeys',
            'larder journey --trust <name>.pub'). Its id, the first 16 hex digits of its SHA-256,
            is what signed documents name. An existing file is never overwritten.

            EXIT STATUS: 0 written, 64 usage error, 73 a file exists or cannot be written.
            """)

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 2...2) } catch {
            if arguments.contains("-h") || arguments.contains("--help") { Console.out(spec.helpText); return .success }
            return Console.usageError(error)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        guard parsed.positionals[0] == "generate" else {
            return Console.usageError(UsageError(message: "Unknown subcommand '\(parsed.positionals[0])'", command: spec))
        }
        let name = parsed.positionals[1]
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            return Console.usageError(UsageError(message: "Invalid '<name>': '\(name)' must be a file name", command: spec))
        }
        let folder = parsed.value("--out") ?? "."
        let privatePath = folder + "/" + name + ".pem"
        let publicPath = folder + "/" + name + ".pub"
        if let existing = [privatePath, publicPath].first(where: { FileManager.default.fileExists(atPath: $0) }) {
            Console.error("error: \(existing): exists already; keys are never overwritten")
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
                Console.out("wrote \(privatePath) (private, 0600) and \(publicPath)")
                Console.out("public key \(key.publicKey) (id \(key.publicKey.id))")
            }
            return .success
        } catch {
            Console.error("error: \(error)")
            return .cannotCreate
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
