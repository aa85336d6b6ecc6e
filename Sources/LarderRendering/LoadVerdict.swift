import LarderFormat
import LarderHost

/// One answered scheme request as the renderer keeps it: the public record, the error that
/// names the resource when it failed, and whether the first screen needs it (the entry
/// document, an essential file, or a font).
package struct AnsweredRequest: Sendable {
    package var record: ServedRequest
    package var failure: HostError?
    package var essential: Bool
}

/// Whether a finished load is ready, decided from what the page answered and what the schemes
/// served: the first thing wrong, in this order, is the load's error.
///
/// 1. An essential request failed: the entry document, an essential file, a font (a missing
///    object, a quarantined font, an unknown digest).
/// 2. The page is not the document that was loaded (it navigated away during the load; a
///    fragment of its own does not count).
/// 3. A `FontFace` is `loading` or `error`, or the first screen needs it (its `unicode-range`
///    meets the rendered text, or the manifest marks its font essential) and it is not
///    `loaded`. A face of a subset the page does not use stays `unloaded`: not a failure.
/// 4. A script threw at load.
package enum LoadVerdict {
    /// The error that keeps the load from being ready, or nil when it is ready.
    /// - Parameters:
    ///   - readiness: the page's answer.
    ///   - url: the URL that was loaded.
    ///   - requests: the scheme requests answered during the load.
    ///   - bundle: the loaded bundle, to name its files by bundle path.
    package static func failure(of readiness: PageReadiness, loading url: String, requests: [AnsweredRequest], bundle: Digest?) -> HostError? {
        if let failed = requests.first(where: { $0.essential && $0.failure != nil }), let failure = failed.failure {
            return failure
        }
        // A fragment (`#offer`) moves within the document: the page did not leave it.
        guard readiness.href.prefix(while: { $0 != "#" }) == url.prefix(while: { $0 != "#" }) else {
            return HostError(
                .renderer, "the page left '\(url)' for '\(readiness.href.prefix(300))' while loading", resource: bundlePath(url, bundle) ?? url,
                digest: bundle)
        }
        if let font = readiness.fonts.first(where: { $0.status == "loading" || $0.status == "error" || ($0.needed && $0.status != "loaded") }) {
            let source = font.sources.first
            return HostError(
                .renderer,
                "the font '\(font.family)' (weight \(font.weight), \(font.style)) did not load: its status is '\(font.status)'"
                    + (source.map { " (from \($0.prefix(300)))" } ?? ""),
                resource: source.flatMap { bundlePath($0, bundle) ?? $0 } ?? font.family, digest: bundle)
        }
        if let error = readiness.errors.first?.value {
            let place = bundlePath(error.source, bundle) ?? error.source
            return HostError(
                .renderer, "a script error at load: \(error.message.prefix(500)) (\(place):\(error.line):\(error.column))",
                resource: place.isEmpty ? nil : place, digest: bundle)
        }
        return nil
    }

    /// The bundle path of a `larder://<bundle>/<path>` URL of `bundle`.
    package static func bundlePath(_ url: String, _ bundle: Digest?) -> String? {
        guard let bundle, case .file(let path) = SchemeRoute.of(url, bundle: bundle) else { return nil }
        return path
    }
}
