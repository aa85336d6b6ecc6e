import LarderFormat

enum InspectCommand {
    static let spec = CommandSpec(
        name: "inspect",
        overview: "Show a bundle archive's manifest.",
        usage: "larder inspect <archive> [--json]",
        arguments: [("<archive>", "A .tar.gz written by 'larder pack'.")],
        options: [OptionSpec(names: ["--json"], value: nil, help: "Print the manifest and bundle digest as JSON.")],
        discussion: "EXIT STATUS: 0 shown, 64 usage error, 65 the manifest is missing or invalid, 66 no such file.")

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 1...1) } catch {
            return Console.usageError(error)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        let path = parsed.positionals[0]
        let manifest: Manifest
        let digest: Digest
        do {
            let reader = try ArchiveReader(path: path)
            let (decoded, bytes) = try BundleVerifier.readManifest(from: reader)
            manifest = decoded
            digest = SHA256Hasher.hash(bytes)
        } catch {
            Console.error("error: \(shown(error))")
            return error.code == .io ? .noInput : .dataError
        }
        if parsed.flag("--json") {
            Console.json(.object([
                "bundleDigest": .string(digest.description),
                "manifest": manifest.jsonValue,
            ]))
            return .success
        }
        var rows = [["PATH", "SIZE", "ROLE", "ESSENTIAL", "DIGEST"]]
        for file in manifest.files {
            rows.append([file.path, humanSize(file.size), file.role.rawValue, file.essential ? "yes" : "", String(file.digest.hex.prefix(12))])
        }
        let capabilities = manifest.renderer.capabilities.sorted().map(\.rawValue)
        Console.out("""
            Bundle   \(shown(manifest.name))
            Digest   \(digest)
            Entry    \(shown(manifest.entry))
            Renderer protocol \(manifest.renderer.protocolVersion), capabilities: \(capabilities.isEmpty ? "none" : capabilities.joined(separator: ", "))
            Files    \(manifest.files.count), \(humanSize(manifest.totalSize))

            \(table(rows))
            """)
        return .success
    }
}
