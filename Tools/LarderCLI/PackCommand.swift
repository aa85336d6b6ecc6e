import Foundation
import LarderFormat
import LarderPack

enum PackCommand {
    /// The options with values, each declared once (``TypedOption``).
    enum Options {
        static let output = TypedOption(
            OptionSpec(names: ["-o", "--output"], value: "out", help: "Folder for <bundle-digest>.tar.gz (default: .)."), default: ".")
        static let level = TypedOption(OptionSpec(names: ["--level"], value: "1-9", help: "gzip level (default: 6)."), default: 6) { text in
            guard let level = Int(text), (1...9).contains(level) else { return .failure(OptionRefusal(message: "--level must be 1 to 9, not '\(text)'")) }
            return .success(level)
        }
        static let expect = TypedOption<Digest?>(
            OptionSpec(
                names: ["--expect"], value: "digest",
                help: "Fail (65) unless the bundle digest is this one; names the files that differ when <out> holds its archive. One source folder only."),
            default: nil
        ) { text in
            do throws(FormatError) { return .success(try Digest(parsing: text)) } catch { return .failure(OptionRefusal(message: "--expect: \(error.message)")) }
        }
        static let fontCache = TypedOption<String?>(
            OptionSpec(
                names: ["--font-cache"], value: "dir",
                help: "Keep converted fonts here (default: $XDG_CACHE_HOME/larder/fonts, else ~/.cache/larder/fonts)."))
    }

    static let spec = CommandSpec(
        name: "pack",
        overview: "Pack source folders into deterministic, content-hashed bundle archives.",
        usage:
            "larder pack <source-folder>... [-o <out>] [--level <1-9>] [--strict] [--expect <digest>] [--font-cache <dir>] [--verbose] [--json]",
        arguments: [("<source-folder>", "A bundle's HTML, CSS, JS, fonts and images, with an optional larder.json; several in one run.")],
        options: [
            Options.output.spec,
            Options.level.spec,
            OptionSpec(
                names: ["--strict"], value: nil,
                help: "Treat remote http(s) resources a page loads, fonts that cannot be converted and characters no subset holds as errors."),
            Options.expect.spec,
            Options.fontCache.spec,
            OptionSpec(names: ["--verbose"], value: nil, help: "List every warning, not the first few of each kind."),
            OptionSpec(names: ["--json"], value: nil, help: "Print the report as JSON (every warning included)."),
        ],
        discussion: """
            Every local reference in HTML and CSS must exist. Each @font-face rule gets one source:
            its best font (WOFF2, WOFF, TrueType, OpenType) encoded as WOFF2, split into
            unicode-range subsets where larder.json's "fonts" asks, at larder-font://sha256/<hex>;
            its other sources are not packed unless something else uses them. Font preloads and
            other HTML references to font files are rewritten to the same URLs. Junk (.DS_Store,
            __MACOSX, VCS folders, swap files) and what larder.json's "exclude" patterns match are
            left out. Entries get mtime 0, or SOURCE_DATE_EPOCH when it is set.

            With several folders each is packed in turn, a summary table follows, and the exit
            status is the most serious of theirs (73, then 66, then 65).

            A bundle past a limit every reader keeps (a 16 MiB manifest, 100,000 entries with its
            folders and the manifest, 8 GiB, a 200:1 compression ratio) is refused: no archive
            is written that inspect, verify, cache install or publish would refuse. An output
            folder inside the source folder is left out of the bundle.

            EXIT STATUS: 0 packed, 64 usage error, 65 a source has errors or is past a reader's
            limit, or the digest is not the expected one, 66 no such folder, 73 an archive could
            not be written (the output path is under a file, or is the source folder).
            """)

    /// What one source folder came to.
    struct Outcome {
        var source: String
        var report: PackReport?
        var errors: [PackError] = []
        var expectation: PackExpectation?
        var status: ExitCode
    }

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 1...Int.max) } catch {
            return Console.usageError(error)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        var options = PackOptions()
        let expected: Digest?
        let output: String
        do throws(UsageError) {
            output = try parsed[Options.output]
            options.level = try parsed[Options.level]
            options.strict = parsed.flag("--strict")
            if let folder = try parsed[Options.fontCache] { options.fontCache = .folder(folder) }
            expected = try parsed[Options.expect]
        } catch {
            return Console.usageError(error)
        }
        if expected != nil, parsed.positionals.count != 1 {
            return Console.usageError(UsageError(message: "--expect takes exactly one source folder", command: spec))
        }
        if let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], !epoch.isEmpty {
            guard let seconds = Int64(epoch), seconds >= 0 else {
                Console.failure("SOURCE_DATE_EPOCH must be a whole number of seconds, not '\(shown(epoch))'")
                return .usage
            }
            options.modificationTime = seconds
        }
        let several = parsed.positionals.count > 1
        let verbose = parsed.flag("--verbose")
        var outcomes: [Outcome] = []
        for source in parsed.positionals {
            let outcome = pack(source, into: output, options: options, expected: expected, quiet: parsed.flag("--json"))
            let label = several ? source : nil
            for problem in outcome.errors { Console.failure((label.map { "\(shown($0)): " } ?? "") + shown(problem)) }
            if let expectation = outcome.expectation, !expectation.matches {
                Console.failure(expectation.text(label: label))
            }
            if let report = outcome.report {
                if !parsed.flag("--json") && !several { Console.out(text(report)) }
                let warnings = PackWarningsText.text(report.warnings, verbose: verbose, source: label)
                if !warnings.isEmpty { Console.error(warnings) }
            }
            outcomes.append(outcome)
        }
        let status = combinedStatus(outcomes.map(\.status))
        if parsed.flag("--json") {
            Console.json(several ? .object(["bundles": .array(outcomes.map(json)), "status": .int(Int64(status.rawValue))]) : json(outcomes[0]))
        } else if several {
            Console.out(summary(outcomes))
        }
        return status
    }

    /// Packs one folder and checks it against the expected digest.
    static func pack(_ source: String, into output: String, options: PackOptions, expected: Digest?, quiet: Bool) -> Outcome {
        let report: PackReport
        let bar = ProgressBar(label: "packing", quiet: quiet, stdoutToo: false)
        var options = options
        options.progress = { bar.update(bytes: $0.bytes, of: $0.totalBytes) }
        defer { bar.finish() }
        do {
            report = try Packer.pack(source: source, into: output, options: options)
        } catch {
            let codes = Set(error.errors.map(\.code))
            let status: ExitCode = codes.contains(.outputFailed) ? .cannotCreate : codes.contains(.invalidSource) ? .noInput : .dataError
            return Outcome(source: source, report: nil, errors: error.errors, status: status)
        }
        var outcome = Outcome(source: source, report: report, status: .success)
        if let expected {
            let expectation = PackExpectation(expected: expected, report: report, outputFolder: output)
            outcome.expectation = expectation
            if !expectation.matches { outcome.status = .dataError }
        }
        return outcome
    }

    /// The most serious status: 73 (output), then 66 (missing input), then 65 (bad input).
    static func combinedStatus(_ statuses: [ExitCode]) -> ExitCode {
        for status in [ExitCode.cannotCreate, .noInput, .dataError] where statuses.contains(status) { return status }
        return statuses.first { $0 != .success } ?? .success
    }

    static func text(_ report: PackReport) -> String {
        let ratio = report.totalSize > 0 ? Int((Double(report.archiveSize) / Double(report.totalSize) * 100).rounded()) : 100
        var text = """
            Packed \(shown(report.name))
              bundle   \(report.bundleDigest)
              archive  \(report.archiveDigest)
              file     \(shown(report.archivePath))
              files    \(report.fileCount) (\(report.essentialCount) essential), \(humanSize(report.totalSize)) -> \(humanSize(report.archiveSize)) (\(ratio)%)
              fonts    \(report.rewrittenFontReferences) font reference(s) (@font-face sources, font preloads) rewritten to larder-font://
            """
        if !report.excluded.isEmpty {
            text += "\n  excluded \(report.excluded.count) file(s) or folder(s) by larder.json"
        }
        let fonts = report.fonts
        if !fonts.faces.isEmpty {
            let source = fonts.faces.reduce(Int64(0)) { $0 + $1.sourceBytes }
            let packed = fonts.faces.reduce(Int64(0)) { $0 + $1.packedBytes }
            text += "\n  faces    \(fonts.faces.count), \(humanSize(source)) of sources -> \(humanSize(packed)) packed (\(fonts.libraries))"
            text += "\n  font cache \(fonts.cacheFolder ?? "none"): \(fonts.cacheHits) hit(s), \(fonts.conversions) conversion(s)"
            if fonts.rejectedCacheEntries > 0 { text += ", \(fonts.rejectedCacheEntries) bad entr(ies) replaced" }
            if fonts.verifiedCacheEntries > 0 { text += ", \(fonts.verifiedCacheEntries) unsigned entr(ies) checked against their sources" }
            text += "\n" + FontReportText.text(fonts.faces, indent: "    ")
        }
        return text
    }

    /// The table printed after packing several folders.
    static func summary(_ outcomes: [Outcome]) -> String {
        var rows = [["SOURCE", "STATUS", "FILES", "SIZE", "ARCHIVE", "WARNINGS", "BUNDLE"]]
        for outcome in outcomes {
            guard let report = outcome.report else {
                rows.append([outcome.source, "failed (\(outcome.errors.count) error\(outcome.errors.count == 1 ? "" : "s"))", "", "", "", "", ""])
                continue
            }
            let status = outcome.expectation.map { $0.matches ? "packed, as expected" : "unexpected digest" } ?? "packed"
            rows.append([
                outcome.source, status, String(report.fileCount), humanSize(report.totalSize), humanSize(report.archiveSize),
                String(report.warnings.count), String(report.bundleDigest.hex.prefix(12)),
            ])
        }
        let packed = outcomes.filter { $0.status == .success }.count
        return table(rows) + "\n\(packed) of \(outcomes.count) packed"
    }

    /// One folder's JSON: the report's keys when it packed, `errors` when it did not; `source`
    /// and `status` (its exit status) always.
    static func json(_ outcome: Outcome) -> JSONValue {
        var members: [String: JSONValue] = ["source": .string(outcome.source), "status": .int(Int64(outcome.status.rawValue))]
        if let report = outcome.report, case .object(let fields) = json(report) {
            members.merge(fields) { first, _ in first }
        }
        if !outcome.errors.isEmpty {
            members["errors"] = .array(
                outcome.errors.map { error in
                    var fields: [String: JSONValue] = ["code": .string(error.code.rawValue), "message": .string(error.message)]
                    if let path = error.path { fields["path"] = .string(path) }
                    if let location = error.location { fields["location"] = .string(location.description) }
                    return .object(fields)
                })
        }
        if let expectation = outcome.expectation { members["expectation"] = expectation.json }
        return .object(members)
    }

    static func json(_ report: PackReport) -> JSONValue {
        .object([
            "name": .string(report.name),
            "bundleDigest": .string(report.bundleDigest.description),
            "archiveDigest": .string(report.archiveDigest.description),
            "archivePath": .string(report.archivePath),
            "fileCount": .int(Int64(report.fileCount)),
            "essentialCount": .int(Int64(report.essentialCount)),
            "totalSize": .int(report.totalSize),
            "archiveSize": .int(report.archiveSize),
            "rewrittenFontReferences": .int(Int64(report.rewrittenFontReferences)),
            "unreferenced": .array(report.unreferenced.map { .string($0) }),
            "remoteReferences": .array(
                report.remoteReferences.map { .object(["url": .string($0.url), "location": .string($0.location.description)]) }),
            "skipped": .array(report.skipped.map { .string($0) }),
            "excluded": .array(report.excluded.map { .string($0) }),
            "warnings": PackWarningsText.json(report.warnings),
            "fonts": FontReportText.json(report.fonts),
        ])
    }
}
