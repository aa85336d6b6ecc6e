import LarderFormat
import LarderPack

enum InspectCommand {
    static let spec = CommandSpec(
        name: "inspect",
        overview: "Show a bundle archive's manifest.",
        usage: "larder inspect <archive> [--json]",
        arguments: [("<archive>", "A .tar.gz written by 'larder pack'.")],
        options: [OptionSpec(names: ["--json"], value: nil, help: "Print the manifest, the bundle digest and the font faces as JSON.")],
        discussion: "EXIT STATUS: 0 shown, 64 usage error, 65 the manifest is missing or invalid, 66 no such file.")

    static func run(_ arguments: [String]) -> ExitCode {
        let json = FailureJSON.wanted(arguments)
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 1...1) } catch {
            return FailureJSON.usage(error, json: json)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        let path = parsed.positionals[0]
        let manifest: Manifest
        let digest: Digest
        var texts: [String: [UInt8]] = [:]
        do {
            let reader = try ArchiveReader(path: path)
            let verified = try BundleVerifier.readManifest(from: reader)
            (manifest, digest) = (verified.manifest, verified.digest)
            // The stylesheets and documents, for their @font-face rules (only bytes that match
            // the manifest count; `verify` says what else is wrong).
            while let entry = try reader.next() {
                guard let file = manifest.file(at: entry.path), file.role == .style || file.role == .document, file.size <= 16 << 20 else {
                    continue
                }
                let content = try reader.readAll(limit: Int(file.size))
                if SHA256Hasher.hash(content) == file.digest { texts[file.path] = content }
            }
        } catch {
            return FailureJSON.failed(
                error.code == .io ? .noInput : .dataError, code: error.code.rawValue, message: error.description, path: error.path ?? path,
                json: json)
        }
        let faces = FontListing.faces(of: manifest) { texts[$0] }
        if parsed.flag("--json") {
            Console.json(.object([
                "bundleDigest": .string(digest.description),
                "manifest": manifest.jsonValue,
                "fonts": FontReportText.json(faces),
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
        if !faces.isEmpty { Console.out("\nFont faces\n" + FontReportText.text(faces)) }
        return .success
    }
}
