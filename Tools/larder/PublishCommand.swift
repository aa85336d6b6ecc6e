import Foundation
import LarderFormat
import LarderPack

enum PublishCommand {
    static let spec = CommandSpec(
        name: "publish",
        overview: "Publish bundle archives to a static origin folder, and point a journey at one.",
        usage: "larder publish <archive>... --origin <folder> [--journey <id> --key <publishable-key> --refresh <seconds>] [--json]",
        arguments: [("<archive>...", "Archives written by 'larder pack'; each is verified entry by entry.")],
        options: [
            OptionSpec(names: ["--origin"], value: "folder", help: "The folder a static HTTP server serves (see Tools/origin)."),
            OptionSpec(names: ["--journey"], value: "id", help: "Point this journey at the last archive (a new revision if it changed)."),
            OptionSpec(names: ["--key"], value: "publishable-key", help: "Grant this key the journey."),
            OptionSpec(names: ["--refresh"], value: "seconds", help: "Refresh interval in the journey document (default: 600)."),
            OptionSpec(names: ["--json"], value: nil, help: "Print the report as JSON."),
        ],
        discussion: """
            Writes objects/<hex>, bundles/<hex>.tar.gz, bundles/<hex>/manifest.json,
            journeys/<id>.json and access/{keys,grants}.map, each through a temporary file and a
            rename; content already there is left alone, so publishing again changes nothing.

            EXIT STATUS: 0 published, 64 usage error, 65 an archive is invalid, 66 no such
            archive, 73 the origin could not be written.
            """)

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 1...10_000) } catch {
            return Console.usageError(error)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        guard let origin = parsed.value("--origin") else {
            return Console.usageError(UsageError(message: "Missing '--origin <folder>'", command: spec))
        }
        var journey: JourneyPublication?
        if let id = parsed.value("--journey") {
            var refresh: Int64 = 600
            if let text = parsed.value("--refresh") {
                guard let seconds = Int64(text), seconds > 0 else {
                    return Console.usageError(UsageError(message: "--refresh must be a positive number of seconds", command: spec))
                }
                refresh = seconds
            }
            journey = JourneyPublication(id: id, key: parsed.value("--key"), refresh: refresh)
        } else if parsed.value("--key") != nil || parsed.value("--refresh") != nil {
            return Console.usageError(UsageError(message: "--key and --refresh go with --journey", command: spec))
        }
        for archive in parsed.positionals where !FileManager.default.fileExists(atPath: archive) {
            Console.error("error: \(archive): no such archive")
            return .noInput
        }
        let report: PublishReport
        do {
            report = try OriginPublisher.publish(archives: parsed.positionals, to: origin, journey: journey)
        } catch {
            for problem in error.errors { Console.error("error: \(problem)") }
            if error.errors.contains(where: { $0.code == .outputFailed }) { return .cannotCreate }
            if error.errors.contains(where: { $0.message.contains("may use only") }) {
                return Console.usageError(UsageError(message: error.errors[0].message, command: spec))
            }
            return .dataError
        }
        if parsed.flag("--json") {
            Console.json(.object([
                "bundles": .array(report.bundles.map {
                    .object(["name": .string($0.name), "digest": .string($0.digest.description), "objectsWritten": .int(Int64($0.objectsWritten))])
                }),
                "journey": report.journey.map { document in
                    .object([
                        "journey": .string(document.journey), "revision": .int(document.revision),
                        "bundle": .string(document.bundle.description), "refresh": .int(document.refresh),
                    ])
                } ?? .null,
                "changed": .array(report.changed.map { .string($0) }),
            ]))
        } else {
            for bundle in report.bundles {
                Console.out("published \(bundle.name) \(bundle.digest): \(bundle.objectsWritten) new objects")
            }
            if let document = report.journey {
                Console.out("journey \(document.journey) revision \(document.revision) -> \(document.bundle) (refresh \(document.refresh) s)")
            }
            if report.changed.isEmpty { Console.out("nothing changed on disk") }
        }
        return .success
    }
}
