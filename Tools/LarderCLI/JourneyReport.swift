import Foundation
import LarderFormat
import LarderHost
import LarderTransport

/// Prints the outcome of a `larder journey` run, for people (a timeline table and a summary)
/// or as one JSON object with stable keys, and chooses the exit status.
struct JourneyReport {
    var action: JourneyCommand.Action
    var journey: String
    var json: Bool
    /// `headless` or `webkit`.
    var renderer: String
    /// The publishable key sent, for the hint after a denial.
    var key: String = ""

    /// Prints `outcome` (stdout; the error line to stderr) and returns the exit status.
    /// - Parameter load: what the renderer read in its last load, if anything.
    func print(_ outcome: JourneyOutcome, load: LoadSummary?) -> ExitCode {
        if json {
            Console.json(action == .status || action == .logout ? statusJSON(outcome) : runJSON(outcome, load: load))
        } else if action == .status || action == .logout, let status = outcome.status {
            Console.out(table(statusRows(status, now: outcome.finished)))
        } else {
            var sections: [String] = []
            if !outcome.timeline.isEmpty { sections.append(timelineTable(outcome)) }
            if outcome.error == nil { sections.append(table(summaryRows(outcome, load: load))) }
            if !sections.isEmpty { Console.out(sections.joined(separator: "\n\n")) }
        }
        if let error = outcome.error { Console.failure("\(shown(error))") }
        if outcome.metBackoff, action == .prepare || action == .present {
            Console.error(JourneyHints.backoff(until: outcome.backoffEnds, now: outcome.finished))
        }
        guard let error = outcome.error else { return .success }
        if let hint = JourneyHints.denial(error, key: key, journey: journey) { Console.error(shown(hint)) }
        return ExitCode(error)
    }

    // MARK: People

    private func timelineTable(_ outcome: JourneyOutcome) -> String {
        let offsets = outcome.timeline.map { "\(Self.milliseconds(from: outcome.started, to: $0.time))" }
        let width = offsets.map(\.count).max() ?? 0
        var rows = [[String(repeating: " ", count: max(width - 2, 0)) + "MS", "EVENT", "DETAIL"]]
        for (entry, offset) in zip(outcome.timeline, offsets) {
            rows.append([String(repeating: " ", count: max(width, 2) - offset.count) + offset, entry.kind.rawValue, entry.detail])
        }
        return table(rows)
    }

    private func summaryRows(_ outcome: JourneyOutcome, load: LoadSummary?) -> [[String]] {
        var rows = [["Journey", journey]]
        if let prepared = outcome.prepared {
            rows.append(["Revision", "\(prepared.revision)" + (prepared.source == .embedded ? " (the embedded default)" : "")])
            if let published = prepared.published { rows.append(["Published", published]) }
            rows.append(["Bundle", prepared.bundle.description])
            if let assignment = prepared.assignment { rows.append(["Rollout", assignment.summary]) }
            rows.append(["Source", prepared.source.rawValue + (prepared.stale ? " (served stale: the origin could not be asked)" : "")])
            rows.append(["Mode", prepared.preloaded ? "prepared hidden" : "direct (the renderer loads when visible)"])
            if prepared.removed {
                rows.append(["Removed", "yes: the origin confirmed the journey is gone; the cached revision stays in service (--on-removed keep)"])
            }
            if let reason = prepared.fallbackReason { rows.append(["Fallback", reason]) }
        }
        if let session = outcome.session {
            rows.append(["Session", session.id])
            if session.preview { rows.append(["Preview", "bundle \(session.bundle) (not the journey's revision; captures carry larder:preview)"]) }
            if !session.context.isEmpty {
                rows.append(["Context", session.context.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")])
            }
        }
        if let result = outcome.result {
            rows.append(["Outcome", Self.explain(result.outcome)])
            rows.append(["Screen", result.screen.map { "\($0.id) (\($0.name))" } ?? "none"])
        }
        if let engine = load?.engine {
            rows.append(["Renderer", "webkit (WebKitGTK)"])
            rows += engine.rows
        } else if let load {
            rows.append(["Resources", "\(load.resources) (entry \(load.entry))"])
            rows.append(["Fonts", "\(load.fonts)"])
            rows.append(["Bytes", "\(load.bytes) (\(humanSize(load.bytes)))"])
        } else {
            rows.append(["Resources", "none loaded yet"])
        }
        if outcome.bridge.posted > 0 { rows.append(["Bridge", Self.describe(outcome.bridge)]) }
        if let screenshot = outcome.screenshot { rows.append(["Screenshot", screenshot]) }
        rows.append(["Elapsed", "\(Self.milliseconds(from: outcome.started, to: outcome.finished)) ms"])
        return rows
    }

    private func statusRows(_ status: JourneyStatus, now: Date) -> [[String]] {
        var rows = [["Journey", status.journey]]
        rows.append(["Revision", status.revision.map { "\($0)" } ?? "none (never fetched)"])
        rows.append(["Bundle", status.bundle?.description ?? "none"])
        rows.append(["Refresh", status.refresh.map { used in
            guard let asked = status.requestedRefresh, asked != used else { return "every \(used) s (asked by the origin)" }
            return "every \(used) s (the origin asked for \(asked) s; clamped to 10-30 min)"
        } ?? "-"])
        rows.append(["Renewed", status.renewed.map { "\(Self.iso($0)) (\(DurationText.describe(seconds: now.timeIntervalSince($0))) ago)" } ?? "never"])
        rows.append([
            "Freshness",
            status.freshness.map { status.authorisedSinceStart ? Self.explain($0) : "requires-fetch (a new process asks the origin first)" }
                ?? "none: nothing authorised yet",
        ])
        rows.append(["Cached", status.cached ? "yes (usable offline)" : "no"])
        rows.append(["Failures", "\(status.failures)"])
        rows.append([
            "Next attempt",
            status.nextAttempt.map { $0 > now ? "\(Self.iso($0)) (in \(DurationText.describe(seconds: $0.timeIntervalSince(now))))" : "any time" }
                ?? "any time",
        ])
        rows.append(["Pending captures", "\(status.journeyCaptures) of this journey, \(status.pendingCaptures) in all"])
        if let denial = status.denial {
            let what = denial.status == 404
                ? "removed from the origin (a confirmed 404); " + (denial.contentKept ? "the cached revision stays in service" : "content discarded")
                : "denied (HTTP \(denial.status)); content discarded"
            rows.append(["Denied", "\(Self.iso(denial.time)) (\(DurationText.describe(seconds: now.timeIntervalSince(denial.time))) ago): \(what)"])
        }
        return rows
    }

    // MARK: JSON

    private func runJSON(_ outcome: JourneyOutcome, load: LoadSummary?) -> JSONValue {
        let prepared = outcome.prepared
        var object: [String: JSONValue] = [
            "journey": .string(journey),
            "revision": prepared.map { .int($0.revision) } ?? .null,
            "bundle": prepared.map { .string($0.bundle.description) } ?? .null,
            "source": prepared.map { .string($0.source.rawValue) } ?? .null,
            "stale": prepared.map { .bool($0.stale) } ?? .null,
            "mode": prepared.map { .string($0.preloaded ? "prepared-hidden" : "direct") } ?? .null,
            "removed": prepared.map { .bool($0.removed) } ?? .null,
            "fallbackReason": prepared?.fallbackReason.map(JSONValue.string) ?? .null,
            "published": prepared?.published.map(JSONValue.string) ?? .null,
            "assignment": prepared?.assignment.map(Self.assignmentJSON) ?? .null,
            "timeline": .array(outcome.timeline.map { entry in
                .object([
                    "ms": .int(Self.milliseconds(from: outcome.started, to: entry.time)), "kind": .string(entry.kind.rawValue),
                    "detail": .string(entry.detail),
                ])
            }),
            "resources": load.map { .int(Int64($0.resources)) } ?? .null,
            "fonts": load.map { .int(Int64($0.fonts)) } ?? .null,
            "bytes": load.map { .int($0.bytes) } ?? .null,
            "elapsedMs": .int(Self.milliseconds(from: outcome.started, to: outcome.finished)),
            "renderer": .string(renderer),
            "screenshot": outcome.screenshot.map(JSONValue.string) ?? .null,
            "bridge": .object([
                "posted": .int(Int64(outcome.bridge.posted)), "accepted": .int(Int64(outcome.bridge.accepted)),
                "tooLarge": .int(Int64(outcome.bridge.tooLarge)), "overRate": .int(Int64(outcome.bridge.overRate)),
                "malformed": .int(Int64(outcome.bridge.malformed)),
            ]),
        ]
        if let engine = load?.engine { object["load"] = engine.json }
        if action == .present {
            object["session"] = outcome.session.map { .string($0.id) } ?? .null
            object["context"] = outcome.session.map { .object($0.context.mapValues(JSONValue.string)) } ?? .null
            object["preview"] = .bool(outcome.session?.preview == true)
            if let session = outcome.session, session.preview { object["bundle"] = .string(session.bundle.description) }
            object["outcome"] = outcome.result.map { .string($0.outcome.rawValue) } ?? .null
            object["screen"] = outcome.result?.screen.map { .object(["id": .string($0.id), "name": .string($0.name)]) } ?? .null
        }
        if let error = outcome.error { object["error"] = Self.errorJSON(error) }
        return .object(object)
    }

    /// `{"bucket": 0-99, "percent": 1-99, "side": "new" | "previous"}`.
    static func assignmentJSON(_ assignment: RolloutAssignment) -> JSONValue {
        .object(["bucket": .int(Int64(assignment.bucket)), "percent": .int(Int64(assignment.percent)), "side": .string(assignment.side.rawValue)])
    }

    private func statusJSON(_ outcome: JourneyOutcome) -> JSONValue {
        guard let status = outcome.status else {
            return .object(["journey": .string(journey), "error": outcome.error.map(Self.errorJSON) ?? .null])
        }
        let now = outcome.finished
        return .object([
            "journey": .string(status.journey),
            "revision": status.revision.map { .int($0) } ?? .null,
            "bundle": status.bundle.map { .string($0.description) } ?? .null,
            "refresh": status.refresh.map { .int($0) } ?? .null,
            "renewed": status.renewed.map { .string(Self.iso($0)) } ?? .null,
            "ageMs": status.renewed.map { .int(Self.milliseconds(from: $0, to: now)) } ?? .null,
            "freshness": status.freshness.map { .string(Self.name($0)) } ?? .null,
            "authorisedSinceStart": .bool(status.authorisedSinceStart),
            "cached": .bool(status.cached),
            "failures": .int(Int64(status.failures)),
            "nextAttempt": status.nextAttempt.map { .string(Self.iso($0)) } ?? .null,
            "pendingCaptures": .int(Int64(status.pendingCaptures)),
            "journeyCaptures": .int(Int64(status.journeyCaptures)),
            "denial": status.denial.map { denial in
                .object([
                    "status": .int(Int64(denial.status)), "time": .string(Self.iso(denial.time)), "contentKept": .bool(denial.contentKept),
                ])
            } ?? .null,
        ])
    }

    static func errorJSON(_ error: HostError) -> JSONValue {
        .object([
            "code": .string(error.code.rawValue), "message": .string(error.description),
            "status": error.status.map { .int(Int64($0)) } ?? .null,
        ])
    }

    // MARK: Formatting

    static func milliseconds(from start: Date, to time: Date) -> Int64 {
        Int64((time.timeIntervalSince(start) * 1000).rounded())
    }

    static func name(_ decision: FreshnessPolicy.Decision) -> String {
        switch decision {
        case .fresh: "fresh"
        case .presentAndRefresh: "present-and-refresh"
        case .requiresFetch: "requires-fetch"
        }
    }

    static func explain(_ decision: FreshnessPolicy.Decision) -> String {
        switch decision {
        case .fresh: "fresh (younger than the refresh interval)"
        case .presentAndRefresh: "present-and-refresh (past the refresh interval, under 30 min)"
        case .requiresFetch: "requires-fetch (older than 30 min: a new presentation needs the origin)"
        }
    }

    /// An outcome for people: its name and what caused it.
    static func explain(_ outcome: PresentationOutcome) -> String {
        let why = switch outcome {
        case .completed: "the content reached the end of the flow"
        case .dismissed: "the content closed the flow"
        case .purchased: "the content asked for a purchase"
        case .restored: "the content asked to restore purchases"
        case .replaced: "another presentation replaced it"
        case .failed: "the origin denied or removed the journey, or the renderer ended"
        case .endedByApp: "the app dismissed it"
        }
        return "\(outcome.rawValue) (\(why))"
    }

    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    /// What the content posted over the bridge: "20001 messages: 100 delivered, 19901 refused
    /// (19900 past the rate limit, 1 too large)".
    static func describe(_ bridge: BridgeCounts) -> String {
        var text = "\(bridge.posted) messages: \(bridge.accepted) delivered"
        guard bridge.refused > 0 else { return text }
        let reasons = [(bridge.overRate, "past the rate limit"), (bridge.tooLarge, "too large"), (bridge.malformed, "malformed")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        text += ", \(bridge.refused) refused (" + reasons.joined(separator: ", ") + ")"
        return text
    }
}
