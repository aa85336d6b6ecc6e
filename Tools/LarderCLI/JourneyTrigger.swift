import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderTransport

/// `larder journey trigger <event>`: fires an app event through a ``JourneyTriggers`` router
/// against an origin and a cache, headless, and prints its decision: shown (the journey and its
/// session, then dismissed), suppressed (why) or no match.
enum JourneyTrigger {
    static let property = KeyValue.option(
        OptionSpec(
            names: ["--property"], value: "key=value",
            help: "A property of the event (repeatable): the presentation's content reads it in window.larder.context, and its captures carry it."))
    static let spec = CommandSpec(
        name: "journey trigger",
        overview: "Fire an app event: present the journey the origin's triggers map it to, if its reentry policy lets it.",
        usage: "larder journey trigger <event> --origin <url> --key <key> [--cache <dir>] [--identity <id>] [--trust <key>] [--offline] [--property <key=value>] [--deadline <duration>] [--json]",
        arguments: [("<event>", "The app event, e.g. checkout_started (lowercase letters, digits, '_' and ':').")],
        options: JourneyCommand.scopeOptions.filter { $0.names != ["--journey"] }
            + [JourneyCommand.offlineOption, property.spec, JourneyCommand.deadlineOption, JourneyCommand.jsonOption],
        discussion: """
            The origin's triggers.json ('larder publish ... --journey <id> --trigger <event>')
            says which journey the event presents and how often one person may see it
            (reentry: once, always, or at most once per a duration); the decision is kept per
            --identity in <cache>/host across runs until 'journey logout' (or the anonymous
            person's without --identity). The triggers document is kept there too: --offline
            decides with it, and the journey is served from the cache as 'journey present'
            would. A shown journey is dismissed at once.

            OUTPUT: 'shown <journey> (revision <n>, session <id>)', 'suppressed <journey>:
            <reason>' (reentry, presentation-open, foreground-grace, no-content, denied) or
            'no-match'; with --json an object with "event", "decision" and, as they apply,
            "journey", "reason", "revision" and "session".
            "decision" is one of "shown", "suppressed", "no-match".

            EXIT STATUS: 0 a decision was made (whichever), 64 usage error, 73 the cache or the
            host state cannot be written, 1 anything else.
            """)

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        let configuration: JourneyConfiguration
        let cachePath: String
        var properties: [String: JSONValue] = [:]
        do throws(UsageError) {
            parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 1...1)
            if parsed.wantsHelp { Console.out(spec.helpText); return .success }
            guard EventName.isValid(parsed.positionals[0]) else {
                throw UsageError(message: "Invalid '<event>': " + EventName.rule(for: parsed.positionals[0]), command: spec)
            }
            var scoped = parsed
            // The router's journeys come from the triggers; the base configuration names none.
            scoped.values["--journey"] = "triggers"
            configuration = try JourneyCommand.configuration(scoped, spec: spec)
            properties = try Self.properties(parsed)
            cachePath = try parsed[CacheCommand.cache]
        } catch {
            return Console.usageError(error)
        }
        let event = parsed.positionals[0]
        let values = properties
        let router: JourneyTriggers
        do {
            router = try JourneyTriggers(
                configuration: configuration, cache: try LarderCache(at: cachePath), storage: cachePath + "/host",
                renderer: { _ in HeadlessRenderer() },
                transport: parsed.flag("--offline") ? OfflineTransport() : platformTransport(), captureSink: HeldCaptureSink(),
                coordinator: PresentationCoordinator(), connectivity: nil)
        } catch {
            return CacheCommand.openingFailed(error, at: cachePath, json: parsed.flag("--json"))
        }
        let outcome: Result<TriggerDecision, HostError> = waitFor {
            let result: Result<TriggerDecision, HostError>
            do throws(HostError) {
                let decision = try await router.trigger(event, properties: values)
                if case .shown(let journey, _) = decision {
                    let host = try await router.host(for: journey)
                    await host.dismiss()
                }
                result = .success(decision)
            } catch {
                result = .failure(error)
            }
            await router.dispose()
            return result
        }
        switch outcome {
        case .success(let decision):
            print(decision, event: event, json: parsed.flag("--json"))
            return .success
        case .failure(let error):
            Console.failure("\(shown(error))")
            return ExitCode(error)
        }
    }

    /// The `--property key=value` pairs, as strings; a pair without `=` or with an empty key,
    /// or a key given twice, is a usage error.
    static func properties(_ parsed: ParsedArguments) throws(UsageError) -> [String: JSONValue] {
        try property.dictionary(in: parsed, command: spec).mapValues { .string($0) }
    }

    private static func print(_ decision: TriggerDecision, event: String, json: Bool) {
        var members: [String: JSONValue] = ["event": .string(event), "decision": .string(decision.name)]
        let line: String
        switch decision {
        case .shown(let journey, let session):
            members["journey"] = .string(journey)
            members["revision"] = .int(session.revision)
            members["session"] = .string(session.id)
            line = "shown \(shown(journey)) (revision \(session.revision), session \(session.id))"
        case .suppressed(let journey, let reason):
            members["journey"] = journey.map(JSONValue.string) ?? .null
            members["reason"] = .string(reason.rawValue)
            line = "suppressed " + (journey.map { "\(shown($0)): " } ?? "") + reason.rawValue
        case .noMatch:
            line = "no-match: no published trigger for \(shown(event))"
        }
        if json { Console.json(.object(members)) } else { Console.out(line) }
    }
}

