import Foundation
import LarderCache
import LarderFetch
import LarderFormat
import LarderHost
import LarderPublish
import LarderTransport

/// `larder journey prepare|present|status`: runs a ``JourneyHost`` against an origin and a
/// cache, with the headless renderer or the web engine, and prints what it did and why.
enum JourneyCommand {
    static let scopeUsage = "--origin <url> --key <key> --journey <id> [--cache <dir>] [--identity <id>] [--trust <public-key>]..."
    static let scopeOptions = [
        OriginOption.spec,
        Options.key.spec,
        Options.journey.spec,
        CacheCommand.cacheOption,
        HostRuleOptions.identity.spec,
        TrustOption.spec,
    ]
    static let offlineOption = OptionSpec(
        names: ["--offline"], value: nil, help: "Fail every request without touching the network, as a device offline does.")
    static var embeddedOption: OptionSpec { Options.embedded.spec }
    static let jsonOption = OptionSpec(names: ["--json"], value: nil, help: "Print the report as JSON.")
    static let allOption = OptionSpec(
        names: ["--all"], value: nil,
        help: "Sign out of every journey: every scope's stored state and every bundle but the embedded default go.")
    static let contextPairs = KeyValue.option(
        OptionSpec(
            names: ["--context"], value: "key=value",
            help: "Context for the presentation (repeatable): the content reads it as window.larder.context, and captures carry it."))
    static let bundleOption = OptionSpec(
        names: ["--bundle"], value: "digest",
        help: "Preview this bundle (sha256:<hex> or <hex>) for QA instead of the journey's revision: from the cache or fetched by digest from the origin, outside the freshness rules, never recorded as the journey's revision.")
    static let deadlineOption = OptionSpec(
        names: ["--deadline"], value: "duration",
        help: "How long asking the origin may hold up a preparation before it falls back, e.g. 5s, 1500ms (default 5s).")
    static let timeoutOption = OptionSpec(
        names: ["--timeout"], value: "duration",
        help: "How long one request of a bundle download may take; the download goes on past --deadline until the command ends (default \(DurationOption.describe(BundleFetcher.Configuration().requestTimeout))).")
    static let rendererOptions = RendererChoice.options

    static let exitStatus = """
        EXIT STATUS: 0 prepared or presented (status: the state was read), 64 usage error,
        65 the origin sent a malformed journey document or one the trusted keys refuse, or the cache holds something Larder
        did not make where it keeps a folder or its index (a symbolic link, a FIFO: remove it), 66 no such embedded archive or cache folder,
        or a --bundle neither cached nor at the origin, 69
        nothing to show (origin unreachable or unavailable with nothing cached, backing off,
        not ready in time, the renderer could not show the content, no content fits the renderer), 73 the disk is full or the cache cannot be written, 77 the origin denied the key or journey (401,
        403, a confirmed 404), 1 anything else.
        """

    static let notes = """
        The host runs with a headless renderer that reads and verifies the first screen's files
        and fonts through the cache, or with --renderer webkit in WebKitGTK, which loads them
        through the larder:// and larder-font:// schemes and is ready once every font face
        loaded (without DISPLAY it starts Xvfb for the run). Its own state (the authorised document and its ETag,
        backoff, the capture queue) lives in <cache>/host. Every run is a new launch: a new
        presentation needs fresh authorisation from the origin, so without it (--offline, the
        origin down) the cached revision is served stale. A failed request (--offline too)
        starts a backoff that later runs honour ('status' shows it). The --origin URL is part
        of the scope: use the same one every time. Capture is on, but the CLI never posts
        events: the event 'present' records stays queued in <cache>/host ('status' counts it).
        """

    static let spec = CommandSpec(
        name: "journey",
        overview: "Prepare or present a journey with the host, headless, and show what it did and why.",
        usage: "larder journey <subcommand> \(scopeUsage) [--offline] [--embedded <archive>] [--deadline <duration>] [--timeout <duration>] [--renderer <name> [--screenshot <png>] [--viewport <WxH>]] [--json]",
        options: scopeOptions + [offlineOption, embeddedOption, deadlineOption, timeoutOption] + rendererOptions + [jsonOption],
        discussion: """
            SUBCOMMANDS:
              prepare                 Prepare the journey: configuration, bundle, hidden renderer.
              present                 Prepare, present once (a new session), then dismiss.
              status                  Show the stored state of the journey; never asks the origin.
              logout                  Discard the scope's content, state and unshared bundles (--all:
                                      every journey's); keep the embedded default and queued
                                      captures.
              captures                List the queued captured events; --deliver <url> sends them.
              prefetch                Warm several journeys up: --journey a --journey b ...
              trigger <event>         Fire an app event: the journey the origin's triggers map
                                      it to, shown, suppressed (why) or no match.
              history                 List what an origin folder published for the journey.

            \(notes)

            TIMELINE: milliseconds since the command started, what happened (fetched,
            revalidated, fresh, served-stale, embedded, denied, failed, backing-off, not-found,
            bundle-fetched, renderer-ready, presented, dismissed, ...) and why. Messages the
            content posts past the bridge's bounds (64 KiB, 100 at once then 20 a second) are
            counted: one bridge-refused entry per presentation, and the Bridge row.

            PRESENT: the Outcome row ("outcome" in --json) says how the presentation ended:
            ended-by-app when the run dismissed it, else what the content ended it with
            (completed, dismissed, purchased, restored); the Screen row ("screen": id and
            name) the last screen shown: the entry document unless the content navigated.

            See 'larder journey <subcommand> --help' for detailed help.

            \(exitStatus)
            """)

    /// What a subcommand does with the host.
    enum Action: String, Sendable { case prepare, present, status, logout }

    static func sub(_ action: Action, _ overview: String, options: [OptionSpec], more: String? = nil) -> CommandSpec {
        let extra = options.map { "[\($0.names.last!)\($0.value.map { " <\($0)>" } ?? "")]" }.joined(separator: " ")
        return CommandSpec(
            name: "journey \(action.rawValue)", overview: overview,
            usage: "larder journey \(action.rawValue) \(scopeUsage) \(extra)", options: scopeOptions + options,
            discussion: "\(notes)\n\n" + (more.map { "\($0)\n\n" } ?? "") + exitStatus)
    }

    static let subcommands: [String: (action: Action, spec: CommandSpec)] = [
        "prepare": (.prepare, sub(
            .prepare, "Prepare a journey: fetch or revalidate its configuration, bring its bundle into the cache and load it hidden.",
            options: [offlineOption, embeddedOption, deadlineOption, timeoutOption] + HostRuleOptions.all + rendererOptions + [jsonOption])),
        "present": (.present, sub(
            .present, "Prepare a journey, present it once in a new session, then dismiss it.",
            options: [offlineOption, embeddedOption, deadlineOption, timeoutOption, contextPairs.spec, bundleOption] + HostRuleOptions.all
                + rendererOptions + [JourneyWindow.option]
                + [jsonOption], more: JourneyWindow.notes)),
        "logout": (.logout, sub(
            .logout, "Sign the scope out: its prepared content, stored state and the bundles no other scope uses are discarded; the embedded default and queued captures stay.",
            options: [allOption, jsonOption])),
        "status": (.status, sub(
            .status, "Show what the host knows about a journey without asking the origin.",
            options: [OptionSpec(names: ["--offline"], value: nil, help: "Accepted for symmetry: status never asks the origin."), jsonOption])),
    ]

    static func run(_ arguments: [String], engine: any WebEngineRunner) -> ExitCode {
        guard let name = arguments.first, !name.hasPrefix("-") else {
            if arguments.contains("-h") || arguments.contains("--help") { Console.out(spec.helpText); return .success }
            return Console.usageError(UsageError(message: "Missing subcommand", command: spec))
        }
        if name == "history" { return JourneyHistoryCommand.run(Array(arguments.dropFirst())) }
        if name == "captures" { return JourneyCaptures.run(Array(arguments.dropFirst())) }
        if name == "prefetch" { return JourneyPrefetch.run(Array(arguments.dropFirst())) }
        if name == "trigger" { return JourneyTrigger.run(Array(arguments.dropFirst())) }
        guard let (action, subSpec) = subcommands[name] else {
            return Console.usageError(UsageError(message: "Unknown subcommand '\(name)'" + CommandTree.larder.child("journey")!.hint(name), command: spec))
        }
        let parsed: ParsedArguments
        let configuration: JourneyConfiguration
        let choice: RendererChoice
        let context: [String: String]
        let preview: Digest?
        let cachePath: String
        do throws(UsageError) {
            parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: subSpec, positionalCount: 0...0)
            if parsed.wantsHelp { Console.out(subSpec.helpText); return .success }
            configuration = try Self.configuration(parsed, spec: subSpec)
            context = try Self.context(parsed, spec: subSpec)
            preview = try Self.previewBundle(parsed, spec: subSpec)
            choice = try RendererChoice(parsed, spec: subSpec)
            cachePath = try parsed[CacheCommand.cache]
            if choice.window && preview != nil {
                throw UsageError(message: "'--window' shows the journey's revision: it does not preview a '--bundle'", command: subSpec)
            }
        } catch {
            return Console.usageError(error)
        }
        if let embedded = configuration.embeddedDefault, !FileManager.default.fileExists(atPath: embedded) {
            Console.failure("\(shown(embedded)): no such archive")
            return .noInput
        }
        let started = Date()
        let report = JourneyReport(
            action: action, journey: configuration.journeyID, json: parsed.flag("--json"), renderer: choice.name,
            key: configuration.publishableKey)
        let renderer: any JourneyRenderer
        do { renderer = try choice.makeRenderer(engine: engine) } catch {
            Console.failure("\(shown(error))")
            return .unavailable
        }
        let host: JourneyHost
        var triggers: JourneyTriggers?
        do {
            // Only prepare and present fill a cache; status and logout read one that is there.
            if action == .status || action == .logout { try CacheFolder.requireExisting(cachePath) }
            let cache = try LarderCache(at: cachePath)
            if action == .logout {
                // The person's trigger reentry goes with the logout (every person's with --all,
                // through the coordinator both join).
                triggers = try JourneyTriggers(
                    configuration: configuration, cache: cache, storage: cachePath + "/host", renderer: { _ in HeadlessRenderer() },
                    transport: OfflineTransport(), connectivity: nil)
            }
            host = try JourneyHost(
                configuration: configuration, cache: cache, renderer: renderer, storage: cachePath + "/host",
                transport: parsed.flag("--offline") ? OfflineTransport() : platformTransport(), captureSink: HeldCaptureSink(),
                connectivity: nil)
        } catch let error as HostError {
            return report.print(JourneyOutcome(started: started, error: error), load: nil)
        } catch {
            return CacheCommand.openingFailed(error, at: cachePath, json: parsed.flag("--json"))
        }
        var capture: (@Sendable () async throws(HostError) -> [UInt8])?
        if choice.screenshot != nil && !choice.window {
            capture = { @Sendable () async throws(HostError) -> [UInt8] in try await engine.screenshot(renderer) }
        }
        let screenshot = capture
        let force = parsed.flag(HostRuleOptions.force.names[0])
        let forceRefresh = parsed.flag(HostRuleOptions.forceRefresh.names[0])
        let bar = ProgressBar(label: "preparing", quiet: parsed.flag("--json") || action == .status || action == .logout)
        let router = triggers
        var outcome = waitFor {
            let drawing = Task { for await fraction in await host.progressUpdates() { bar.update(fraction: fraction) } }
            defer { drawing.cancel() }
            var outcome = await perform(
                action, host: host, started: started, screenshot: screenshot, force: force, forceRefresh: forceRefresh, context: context,
                preview: preview, logout: parsed.flag("--all") ? .everything : .journey,
                window: choice.window ? engine : nil, windowScreenshot: choice.screenshot != nil)
            if let router {
                if outcome.error == nil {
                    do throws(HostError) { try await router.logout() } catch { outcome.error = error }
                }
                await router.dispose()
            }
            return outcome
        }
        bar.finish()
        if let png = outcome.png, let path = choice.screenshot {
            do {
                try WebEngineSupport.write(png, to: path)
                outcome.screenshot = path
            } catch {
                Console.failure("cannot write the screenshot: \(shown(error))")
                return .cannotCreate
            }
        }
        return report.print(outcome, load: waitFor { await RendererChoice.lastLoad(renderer, engine: engine) })
    }

    /// Builds the host configuration from the scope options; a missing or malformed one is a
    /// usage error.
    static func configuration(_ parsed: ParsedArguments, spec: CommandSpec) throws(UsageError) -> JourneyConfiguration {
        guard let origin = try OriginOption.typed.value(in: parsed, command: spec) else {
            throw UsageError(message: "Missing '--origin <url>'", command: spec)
        }
        guard let key = try parsed[Options.key], !key.isEmpty else {
            throw UsageError(message: "Missing '--key <key>'", command: spec)
        }
        guard let journey = try parsed[Options.journey], !journey.isEmpty else {
            throw UsageError(message: "Missing '--journey <id>'", command: spec)
        }
        guard JourneyPublication.isValidName(journey) else {
            throw UsageError(
                message: "Invalid '--journey <id>': '\(journey)' may use only letters, digits, '_', '-' and '.'", command: spec)
        }
        var configuration = JourneyConfiguration(
            publishableKey: key, journeyID: journey, origin: origin, embeddedDefault: try parsed[Options.embedded],
            trustedKeys: try TrustOption.keys(parsed, spec: spec))
        configuration.fetchDeadline = try DurationOption.value(deadlineOption, in: parsed, default: configuration.fetchDeadline, command: spec)
        configuration.download.requestTimeout = try DurationOption.value(
            timeoutOption, in: parsed, default: configuration.download.requestTimeout, command: spec)
        configuration.removedJourney = try parsed[HostRuleOptions.onRemoved]
        configuration.startup = try parsed[HostRuleOptions.startup]
        configuration.identity = try parsed[HostRuleOptions.identity]
        return configuration
    }

    /// The `--context key=value` pairs; a pair without `=` or with an empty key, or a key
    /// given twice, is a usage error.
    static func context(_ parsed: ParsedArguments, spec: CommandSpec) throws(UsageError) -> [String: String] {
        try contextPairs.dictionary(in: parsed, command: spec)
    }

    /// The `--bundle <digest>` to preview: `sha256:<hex>` or the 64 hex digits alone; anything
    /// else is a usage error.
    static func previewBundle(_ parsed: ParsedArguments, spec: CommandSpec) throws(UsageError) -> Digest? {
        try previewBundleOption.value(in: parsed, command: spec)
    }

    /// `--bundle <digest>`, typed (``TypedOption``).
    static let previewBundleOption = TypedOption<Digest?>(bundleOption, default: nil) { text in
        do throws(FormatError) {
            return .success(text.hasPrefix(Digest.prefix) ? try Digest(parsing: text) : try Digest(hex: text))
        } catch {
            return .failure(
                OptionRefusal(message: "Invalid '--bundle <digest>': '\(text)' is not sha256:<64 lowercase hex digits> or the hex digits alone"))
        }
    }

    /// Runs one action on the host, collects the timeline and disposes the host.
    /// - Parameters:
    ///   - screenshot: takes a PNG of the renderer: after preparing, or while presented.
    ///   - force: ask the origin first whatever the backoff (``JourneyHost/refresh(force:)``).
    ///   - forceRefresh: prepare skipping the fresh cache (``JourneyHost/prepare(forceRefresh:)``).
    ///   - context: the presentation's (``JourneyHost/present(context:)``).
    ///   - preview: a bundle `present` previews instead (``JourneyHost/preview(bundle:context:)``).
    ///   - extent: what `logout` discards.
    ///   - window: `present` in a window of this engine (``JourneyWindow``), taking the
    ///     window's picture when `windowScreenshot`.
    static func perform(
        _ action: Action, host: JourneyHost, started: Date, screenshot: (@Sendable () async throws(HostError) -> [UInt8])? = nil,
        force: Bool = false, forceRefresh: Bool = false, context: [String: String] = [:], preview: Digest? = nil,
        logout extent: LogoutExtent = .journey, window: (any WebEngineRunner)? = nil, windowScreenshot: Bool = false
    ) async -> JourneyOutcome {
        var outcome = JourneyOutcome(started: started)
        var forcedFailure: HostError?
        do throws(HostError) {
            if force {
                forcedFailure = await host.refresh(force: true)
                // A denial the explicit refresh brought ends the run: there is nothing to prepare.
                if case .denied(let status) = await host.readiness {
                    throw HostError(.denied, "the origin denied journey '\(await host.configuration.journeyID)'", status: status)
                }
            }
            switch action {
            case .prepare:
                outcome.prepared = try await host.prepare(forceRefresh: forceRefresh)
                if let screenshot { outcome.png = try await screenshot() }
            case .present:
                if let window {
                    try await JourneyWindow.present(host, engine: window, context: context, screenshot: windowScreenshot, into: &outcome)
                } else if let preview {
                    outcome.session = try await host.preview(bundle: preview, context: context)
                } else {
                    outcome.prepared = try await host.prepare(forceRefresh: forceRefresh)
                    outcome.session = try await host.present(context: context)
                }
                if let screenshot { outcome.png = try await screenshot() }
                await host.dismiss()
                // Ended now (or before, by the content): its outcome and last screen.
                outcome.result = await host.waitForCompletion()
            case .status:
                outcome.status = try await host.status()
            case .logout:
                try await host.logout(extent)
                outcome.status = try await host.status()
            }
        } catch {
            // The forced request's failure started the backoff the preparation then met: its
            // error (a refusal, a denial, an unreachable origin) is what happened.
            outcome.error = error.code == .backingOff ? forcedFailure ?? error : error
        }
        outcome.timeline = await host.timeline()
        if outcome.timeline.contains(where: { $0.kind == .backingOff }) || outcome.error?.code == .backingOff {
            // When the backoff ends, for the hint; without the stored state the hint names no time.
            outcome.metBackoff = true
            do throws(HostError) { outcome.backoffEnds = try await host.status().nextAttempt } catch { outcome.backoffEnds = nil }
        }
        outcome.bridge = await host.bridgeCounts()
        outcome.finished = Date()
        await host.dispose()
        return outcome
    }
}

/// What one `larder journey` run produced.
struct JourneyOutcome: Sendable {
    /// When the command started: timeline offsets are measured from here.
    var started: Date
    /// When the host finished its work (before disposal).
    var finished = Date()
    var prepared: PreparedJourney?
    var session: PresentationSession?
    /// How the presentation ended, and its last screen.
    var result: PresentationResult?
    var status: JourneyStatus?
    var error: HostError?
    var timeline: [TimelineEntry] = []
    /// Whether the run met a backoff (the origin was not asked), and when it ends, if known.
    var metBackoff = false
    var backoffEnds: Date?
    /// What the content posted over the renderer bridge, and what was refused.
    var bridge = BridgeCounts()
    /// The screenshot taken, and where it was written.
    var png: [UInt8]?
    var screenshot: String?
}

/// A transport for `--offline`: every request fails as a connection failure, and the network
/// is never touched.
struct OfflineTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        throw TransportError(.connection, "offline", url: request.url)
    }
}

/// The CLI's capture sink: it never delivers, so captured events stay queued in the host's
/// state folder and nothing is posted.
struct HeldCaptureSink: CaptureSink {
    func deliver(_ events: [CaptureEvent]) async -> CaptureReceipt {
        .failed(HostError(.unavailable, "the CLI does not deliver captures"))
    }
}
