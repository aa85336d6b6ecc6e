import LarderCLI
import LarderFormat
import LarderWebKit

/// The web engine's load report, as table rows and as JSON (`larder render`, `larder journey`).
extension WebKitEngine {
    /// The report of a load for people: one row per aspect.
    static func rows(_ report: WebKitLoadReport) -> [[String]] {
        let refused = report.requests.filter { $0.status != 200 }
        return [
            ["Document", report.document],
            ["Ready after", "\(milliseconds(report.readyAfter)) ms"],
            ["Fonts", report.fonts.isEmpty ? "none" : report.fonts.map { "\($0.family) \($0.weight) \($0.status)" }.joined(separator: ", ")],
            ["Requests", "\(report.requests.count) served through larder: and larder-font: (\(humanSize(report.bytes)))"
                + (refused.isEmpty ? "" : ", \(refused.count) refused")],
            ["Blocked", list(report.blocked.map { "\($0.url) (\($0.reason))" })],
            ["Dialogs", list(report.dialogs.map { $0.message.isEmpty ? $0.kind : "\($0.kind) '\($0.message)'" }) + (report.dialogs.isEmpty ? "" : " (answered at once)")],
        ]
    }

    /// Up to 10 items, then how many more (`--json` lists them all).
    static func list(_ items: [String]) -> String {
        guard !items.isEmpty else { return "none" }
        let shown = items.prefix(10).map { $0.count > 200 ? $0.prefix(200) + "…" : $0[...] }.joined(separator: ", ")
        return items.count > 10 ? shown + " and \(items.count - 10) more" : shown
    }

    /// The report of a load as JSON.
    static func json(_ report: WebKitLoadReport) -> JSONValue {
        .object([
            "document": .string(report.document),
            "readyMs": .int(milliseconds(report.readyAfter)),
            "fonts": .array(report.fonts.map { font in
                .object([
                    "family": .string(font.family), "weight": .string(font.weight), "style": .string(font.style),
                    "status": .string(font.status), "sources": .array(font.sources.map(JSONValue.string)),
                ])
            }),
            "requests": .array(report.requests.map { request in
                .object([
                    "url": .string(request.url), "status": .int(Int64(request.status)), "bytes": .int(Int64(request.bytes)),
                    "error": request.error.map(JSONValue.string) ?? .null,
                ])
            }),
            "bytes": .int(report.bytes),
            "blocked": .array(report.blocked.map { .object(["url": .string($0.url), "reason": .string($0.reason)]) }),
            "dialogs": .array(report.dialogs.map { .object(["kind": .string($0.kind), "message": .string($0.message)]) }),
        ])
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
