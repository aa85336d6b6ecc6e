import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPublish
import LarderTransport

/// `larder journey prefetch --journey a --journey b …`: warms several journeys up with one
/// ``JourneyHost/prefetch(journeys:)`` call (configurations and bundles, shared downloads,
/// backoff per journey), with one progress bar on a terminal, and reports each journey.
enum JourneyPrefetch {
    static let spec = CommandSpec(
        name: "journey prefetch",
        overview: "Warm several journeys up: fetch or revalidate each configuration and bring its bundle into the cache.",
        usage: "larder journey prefetch --origin <url> --key <key> --journey <id> [--journey <id> ...] [--cache <dir>] [--identity <id>] [--trust <public-key>]... [--offline] [--timeout <duration>] [--json]",
        options: JourneyCommand.scopeOptions.map { $0.names == ["--journey"] ? OptionSpec(names: ["--journey"], value: "id", help: "A journey id; repeat for each journey, warmed in this order.") : $0 }
            + [JourneyCommand.offlineOption, JourneyCommand.timeoutOption, JourneyCommand.jsonOption],
        discussion: """
            Journeys are warmed one after another, so a bundle downloads only what those before
            it did not bring (a font two flows share travels once). Each keeps its own backoff;
            nothing is forced. Nothing is rendered: a later 'journey prepare' of one of them in
            the same process would find it fresh (a new process asks the origin first, and
            offline serves what was warmed).

            EXIT STATUS: 0 every journey has content in the cache (fresh, or stale when the
            origin could not be asked), 64 usage error, 69 a journey has nothing cached and the
            origin could not be asked, 73 the disk is full or the cache cannot be written, 77 the
            origin denied a journey, 1 anything else.
            """)

    static func run(_ arguments: [String]) -> ExitCode {
        // --journey repeats: take every one out before the usual parsing, which keeps one.
        var journeys: [String] = []
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--journey", index + 1 < arguments.count {
                journeys.append(arguments[index + 1])
                index += 2
                continue
            }
            if argument.hasPrefix("--journey=") {
                journeys.append(String(argument.dropFirst("--journey=".count)))
            } else {
                rest.append(argument)
            }
            index += 1
        }
        let parsed: ParsedArguments
        let configuration: JourneyConfiguration
        let cachePath: String
        do throws(UsageError) {
            parsed = try ParsedArguments(rest, spec: spec, positionalCount: 0...0)
            if parsed.wantsHelp { Console.out(spec.helpText); return .success }
            guard let first = journeys.first else { throw UsageError(message: "Missing '--journey <id>'", command: spec) }
            var values = parsed
            values.values["--journey"] = first
            for journey in journeys where !JourneyPublication.isValidName(journey) {
                throw UsageError(
                    message: "Invalid '--journey <id>': '\(journey)' may use only letters, digits, '_', '-' and '.'", command: spec)
            }
            configuration = try JourneyCommand.configuration(values, spec: spec)
            cachePath = try parsed[CacheCommand.cache]
        } catch {
            return Console.usageError(error)
        }
        let json = parsed.flag("--json")
        let host: JourneyHost
        do {
            host = try JourneyHost(
                configuration: configuration, cache: try LarderCache(at: cachePath), renderer: HeadlessRenderer(),
                storage: cachePath + "/host",
                transport: parsed.flag("--offline") ? OfflineTransport() : platformTransport(), captureSink: HeldCaptureSink(),
                connectivity: nil)
        } catch {
            return CacheCommand.openingFailed(error, at: cachePath, json: parsed.flag("--json"))
        }
        let started = Date()
        let bar = ProgressBar(label: "warming", quiet: json)
        let ids = journeys
        let outcome: (results: [PrefetchResult], error: HostError?, timeline: [TimelineEntry]) = waitFor {
            let drawing = Task { for await fraction in await host.progressUpdates() { bar.update(fraction: fraction) } }
            defer { drawing.cancel() }
            var results: [PrefetchResult] = []
            var failure: HostError?
            do throws(HostError) { results = try await host.prefetch(journeys: ids) } catch { failure = error }
            let timeline = await host.timeline()
            await host.dispose()
            return (results, failure, timeline)
        }
        bar.finish()
        if let error = outcome.error {
            Console.failure("\(shown(error))")
            return ExitCode(error)
        }
        print(outcome.results, timeline: outcome.timeline, started: started, json: json)
        for result in outcome.results {
            if let error = result.error, let hint = JourneyHints.denial(error, key: configuration.publishableKey, journey: result.journey) {
                Console.error(shown(hint))
            }
        }
        if outcome.results.contains(where: { $0.error?.code == .denied }) { return .noPermission }
        if outcome.results.contains(where: { $0.flow == nil }) { return .unavailable }
        return .success
    }

    private static func print(_ results: [PrefetchResult], timeline: [TimelineEntry], started: Date, json: Bool) {
        if json {
            Console.json(.object([
                "journeys": .array(results.map { result in
                    .object([
                        "journey": .string(result.journey),
                        "revision": result.flow.map { .int($0.revision) } ?? .null,
                        "bundle": result.flow.map { .string($0.bundle.description) } ?? .null,
                        "source": result.flow.map { .string($0.source.rawValue) } ?? .null,
                        "stale": result.flow.map { .bool($0.stale) } ?? .null,
                        "error": result.error.map(JourneyReport.errorJSON) ?? .null,
                    ])
                }),
                "timeline": .array(timeline.map { entry in
                    .object([
                        "ms": .int(JourneyReport.milliseconds(from: started, to: entry.time)), "kind": .string(entry.kind.rawValue),
                        "detail": .string(entry.detail),
                    ])
                }),
            ]))
            return
        }
        var rows = [["JOURNEY", "REVISION", "BUNDLE", "SOURCE", "NOTE"]]
        for result in results {
            rows.append([
                result.journey, result.flow.map { "\($0.revision)" } ?? "-", result.flow.map { String($0.bundle.hex.prefix(12)) } ?? "-",
                result.flow.map { $0.source.rawValue + ($0.stale ? " (stale)" : "") } ?? "-",
                result.error.map(\.description) ?? "ready",
            ])
        }
        Console.out(table(rows))
    }
}
