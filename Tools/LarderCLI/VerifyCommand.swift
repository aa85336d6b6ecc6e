import LarderFormat

enum VerifyCommand {
    static let spec = CommandSpec(
        name: "verify",
        overview: "Recompute every digest in a bundle archive and compare it with the manifest.",
        usage: "larder verify <archive> [--digest <sha256:hex>] [--json]",
        arguments: [("<archive>", "A .tar.gz written by 'larder pack'.")],
        options: [
            Options.digest.spec,
            OptionSpec(names: ["--json"], value: nil, help: "Print the report as JSON."),
        ],
        discussion: "EXIT STATUS: 0 intact, 64 usage error, 65 verification failed (each problem names its entry), 66 no such file.")

    static func run(_ arguments: [String]) -> ExitCode {
        let json = FailureJSON.wanted(arguments)
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 1...1) } catch {
            return FailureJSON.usage(error, json: json)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        let expected: Digest?
        do throws(UsageError) { expected = try parsed[Options.digest] } catch { return FailureJSON.usage(error, json: json) }
        let path = parsed.positionals[0]
        let report: VerificationReport
        do { report = try BundleVerifier.verify(archiveAt: path, expectedDigest: expected) } catch {
            return FailureJSON.failed(.noInput, code: error.code.rawValue, message: error.description, path: error.path ?? path, json: json)
        }
        if parsed.flag("--json") {
            Console.json(.object([
                "archive": .string(path),
                "intact": .bool(report.isIntact),
                "bundleDigest": report.bundleDigest.map { .string($0.description) } ?? .null,
                "filesVerified": .int(Int64(report.filesVerified)),
                "bytesVerified": .int(report.bytesVerified),
                "problems": .array(report.problems.map { problem in
                    .object([
                        "code": .string(problem.code.rawValue),
                        "entry": problem.entry.map { .string($0) } ?? .null,
                        "message": .string(problem.message),
                    ])
                }),
            ]))
        } else if report.isIntact {
            Console.out("OK \(shown(path)): \(report.bundleDigest!), \(report.filesVerified) files, \(humanSize(report.bytesVerified)) verified")
        } else {
            for problem in report.problems { Console.failure("\(shown(problem))") }
            Console.error("FAILED \(shown(path)): \(report.problems.count) problem(s)")
        }
        return report.isIntact ? .success : .dataError
    }
}
