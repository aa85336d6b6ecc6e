import Foundation
import LarderFormat
import LarderPack
import LarderPublish

/// `larder publish … --journey <id> --trigger <event> [--trigger <event>]… [--reentry <policy>]`:
/// which app events present the journey, in the origin's triggers document.
enum PublishTriggers {
    /// Any text, checked with ``EventName`` once --journey is known to be there.
    static let trigger = RepeatedOption<String>(
        OptionSpec(
            names: ["--trigger"], value: "event",
            help: "With --journey: an app event that presents the journey (repeatable; the journey's triggers become these), e.g. checkout_started."))
    static let reentry = TypedOption<TriggerDocument.Reentry>(
        OptionSpec(
            names: ["--reentry"], value: "policy",
            help: "With --trigger: how often one person may see it: once, always (default) or a duration (at most once per 1d, 12h, 30min)."),
        default: .always
    ) { text in
        switch text {
        case "once": return .success(.once)
        case "always": return .success(.always)
        default:
            guard let duration = DurationOption.parse(text), duration >= .seconds(1) else {
                return .failure(OptionRefusal(message: "Invalid '--reentry <policy>': '\(text)' (use once, always or a duration such as 1d, 12h, 30min)"))
            }
            return .success(.every(seconds: duration.components.seconds))
        }
    }

    /// The triggers the command line asks for; nil without --trigger.
    /// - Throws: a usage error for --reentry without --trigger, a bad policy or event name.
    static func parse(_ parsed: ParsedArguments, journey: String?, signingKey: SigningKey?, validity: Int64, spec: CommandSpec) throws(UsageError)
        -> TriggerPublication?
    {
        let events = try parsed[all: trigger]
        guard !events.isEmpty else {
            if parsed.isGiven(reentry) { throw UsageError(message: "--reentry goes with --trigger", command: spec) }
            return nil
        }
        guard let journey else { throw UsageError(message: "--trigger goes with --journey", command: spec) }
        if let bad = events.first(where: { !EventName.isValid($0) }) {
            throw UsageError(message: "Invalid '--trigger <event>': " + EventName.rule(for: bad), command: spec)
        }
        let policy = try reentry.value(in: parsed, command: spec)
        var unique: [String] = []
        for event in events where !unique.contains(event) { unique.append(event) }
        return TriggerPublication(journey: journey, events: unique, reentry: policy, signingKey: signingKey, validity: validity)
    }

    /// Publishes the triggers to an origin folder.
    static func publish(_ publication: TriggerPublication, origin: String) throws(PackFailure) -> TriggerPublishReport {
        do throws(PublishError) { return try OriginPublisher.publishTriggers(publication, target: LocalFolderTarget(folder: origin)) } catch {
            throw PackFailure(reporting: error)
        }
    }

    /// The report's line: `triggers revision 2: checkout_started, paywall_tapped -> paywall (once)`.
    static func line(_ report: TriggerPublishReport, journey: String) -> String {
        let events = report.document.triggers.filter { $0.journey == journey }
        var text = "triggers revision \(report.document.revision): "
            + events.map { shown($0.event) }.joined(separator: ", ") + " -> \(shown(journey)) (\(events.first?.reentry.description ?? "none"))"
        for move in report.moved { text += "; \(shown(move.event)) no longer presents \(shown(move.from))" }
        if let signature = report.document.signature { text += ", signed by \(shown(signature.keyID)) until \(shown(report.document.expires ?? "?"))" }
        return text
    }

    /// The report as JSON.
    static func json(_ report: TriggerPublishReport) -> JSONValue {
        .object([
            "revision": .int(report.document.revision),
            "triggers": .array(report.document.triggers.map { .object(["event": .string($0.event), "journey": .string($0.journey), "reentry": .string($0.reentry.description)]) }),
            "moved": .array(report.moved.map { .object(["event": .string($0.event), "from": .string($0.from)]) }),
            "changed": .bool(report.changed),
            "signer": report.document.signature.map { .string($0.keyID) } ?? .null,
        ])
    }
}
