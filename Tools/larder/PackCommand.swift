import Foundation
import LarderFormat
import LarderPack

enum PackCommand {
    static let spec = CommandSpec(
        name: "pack",
        overview: "Pack a source folder into a deterministic, content-hashed bundle archive.",
        usage: "larder pack <source-folder> [-o <out>] [--level <1-9>] [--strict] [--json]",
        arguments: [("<source-folder>", "The bundle's HTML, CSS, JS, fonts and images, with an optional larder.json.")],
        options: [
            OptionSpec(names: ["-o", "--output"], value: "out", help: "Folder for <bundle-digest>.tar.gz (default: .)."),
            OptionSpec(names: ["--level"], value: "1-9", help: "gzip level (default: 6)."),
            OptionSpec(names: ["--strict"], value: nil, help: "Treat remote http(s) references as errors."),
            OptionSpec(names: ["--json"], value: nil, help: "Print the report as JSON."),
        ],
        discussion: """
            Every local reference in HTML and CSS must exist; @font-face sources and the hrefs of
            <link rel="preload" as="font"> are rewritten to larder-font://sha256/<hex>. Junk (.DS_Store, __MACOSX, VCS folders, swap files) is left
            out. Entries get mtime 0, or SOURCE_DATE_EPOCH when it is set.

            EXIT STATUS: 0 packed, 64 usage error, 65 the source has errors, 66 no such
            folder, 73 the archive could not be written.
            """)

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 1...1) } catch {
            return Console.usageError(error)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        var options = PackOptions()
        if let text = parsed.value("--level") {
            guard let level = Int(text), (1...9).contains(level) else {
                return Console.usageError(UsageError(message: "--level must be 1 to 9, not '\(text)'", command: spec))
            }
            options.level = level
        }
        options.strict = parsed.flag("--strict")
        if let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], !epoch.isEmpty {
            guard let seconds = Int64(epoch), seconds >= 0 else {
                Console.error("Error: SOURCE_DATE_EPOCH must be a whole number of seconds, not '\(epoch)'")
                return .usage
            }
            options.modificationTime = seconds
        }
        let source = parsed.positionals[0]
        let report: PackReport
        do {
            report = try Packer.pack(source: source, into: parsed.value("--output") ?? ".", options: options)
        } catch {
            for problem in error.errors { Console.error("error: \(problem)") }
            let codes = Set(error.errors.map(\.code))
            if codes.contains(.invalidSource) { return .noInput }
            if codes.contains(.outputFailed) { return .cannotCreate }
            return .dataError
        }
        if parsed.flag("--json") {
            Console.json(json(report))
        } else {
            Console.out(text(report))
        }
        for path in report.unreferenced { Console.error("warning: unreferenced file '\(path)' is packed but nothing refers to it") }
        for remote in report.remoteReferences { Console.error("warning: \(remote.location): remote reference '\(remote.url)'") }
        return .success
    }

    static func text(_ report: PackReport) -> String {
        let ratio = report.totalSize > 0 ? Int((Double(report.archiveSize) / Double(report.totalSize) * 100).rounded()) : 100
        return """
            Packed \(report.name)
              bundle   \(report.bundleDigest)
              archive  \(report.archiveDigest)
              file     \(report.archivePath)
              files    \(report.fileCount) (\(report.essentialCount) essential), \(humanSize(report.totalSize)) -> \(humanSize(report.archiveSize)) (\(ratio)%)
              fonts    \(report.rewrittenFontReferences) font reference(s) (@font-face sources, font preloads) rewritten to larder-font://
            """
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
        ])
    }
}
