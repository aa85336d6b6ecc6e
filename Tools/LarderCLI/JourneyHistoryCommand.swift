import Foundation
import LarderFormat
import LarderPublish

/// `larder journey history --origin <folder> --journey <id>`: what an origin published for a
/// journey, oldest first, from `journeys/<id>.history.json`.
enum JourneyHistoryCommand {
    static let spec = CommandSpec(
        name: "journey history",
        overview: "List every revision an origin folder published for a journey (what 'publish --rollback' chooses from).",
        usage: "larder journey history --origin <folder> --journey <id> [--json]",
        options: [
            Options.origin.spec,
            Options.journey.spec,
            OptionSpec(names: ["--json"], value: nil, help: "Print the history as JSON."),
        ],
        discussion: """
            One line per revision: its number, bundle, when it was published, the key id that
            signed it (or 'unsigned'), and which revision a rollback went back to. The current
            revision is marked with '*'.

            EXIT STATUS: 0 listed, 64 usage error, 65 the history file is damaged, 66 no such
            journey on the origin.
            """)

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 0...0) } catch {
            return Console.usageError(error)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        let origin: String
        let journey: String
        do throws(UsageError) {
            guard let folder = try parsed[Options.origin] else { throw UsageError(message: "Missing '--origin <folder>'", command: spec) }
            guard let id = try parsed[Options.journey], JourneyPublication.isValidJourneyID(id) else {
                throw UsageError(message: "Missing or invalid '--journey <id>'", command: spec)
            }
            (origin, journey) = (folder, id)
        } catch {
            return Console.usageError(error)
        }
        let history: JourneyHistory
        let current: JourneyDocument?
        do throws(FormatError) {
            history = try JourneyHistory.read(journey: journey, origin: origin)
            current = try OriginPublisher.currentDocument(journey: journey, origin: origin)
        } catch {
            return FailureJSON.failed(.dataError, code: error.code.rawValue, message: "\(error)", path: error.path, json: parsed.flag("--json"))
        }
        guard current != nil || !history.entries.isEmpty else {
            return FailureJSON.failed(
                .noInput, code: "journey-not-published", message: "\(origin): journey '\(journey)' was never published there", path: origin,
                json: parsed.flag("--json"))
        }
        if parsed.flag("--json") {
            Console.json(.object([
                "journey": .string(journey), "current": current.map { .int($0.revision) } ?? .null,
                "revisions": .array(history.entries.map { entry in
                    .object([
                        "revision": .int(entry.revision), "bundle": .string(entry.bundle.description),
                        "published": .string(entry.published), "signer": entry.signer.map { .string($0) } ?? .null,
                        "rollbackTo": entry.rollbackTo.map { .int($0) } ?? .null,
                    ])
                }),
            ]))
            return .success
        }
        for entry in history.entries {
            let mark = entry.revision == current?.revision ? "*" : " "
            var line = "\(mark) revision \(entry.revision)  \(entry.bundle)  \(shown(entry.published))  \(entry.signer.map { "signed by \(shown($0))" } ?? "unsigned")"
            if let target = entry.rollbackTo { line += "  (rollback to revision \(target))" }
            Console.out(line)
        }
        return .success
    }
}
