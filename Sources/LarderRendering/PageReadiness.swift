import Foundation
import LarderFormat
import LarderHost

/// The page's answer to ``PageScripts/readiness``, read strictly.
package struct PageReadiness: Equatable {
    /// `location.href` when it answered.
    package var href: String
    /// `document.visibilityState`.
    package var visibility: String
    /// Every `FontFace`, with the sources of its `@font-face` rule.
    package var fonts: [FontFaceReport]
    /// What the observer script saw, with its sequence numbers.
    package var errors: [Numbered<ScriptError>]
    package var blocked: [Numbered<BlockedRequest>]
    /// Link hints (`preconnect`, `dns-prefetch`, `prefetch`, `prerender`) to remote URLs in
    /// the document, as blocked requests whose reason is the hint.
    package var hints: [Numbered<BlockedRequest>]

    /// A report the observer numbered (`<frame token>:<sequence>`), so one seen twice
    /// (streamed and in this answer) counts once.
    package struct Numbered<Value: Equatable & Sendable>: Equatable, Sendable {
        var id: String
        var value: Value
    }

    /// Reads the answer.
    /// - Throws: ``HostError/Code/renderer`` when it is not of the form the script returns.
    package init(json: JSONValue) throws(HostError) {
        let fields = try Self.object(json, "the readiness answer")
        href = try Self.string(fields["href"], "href")
        visibility = try Self.string(fields["visibility"], "visibility")
        let rules = try Self.array(fields["rules"], "rules").map {
            (rule) throws(HostError) -> (family: String, weight: String, style: String, range: String, sources: [String]) in
            let fields = try Self.object(rule, "a font-face rule")
            return (
                Self.unquoted(try Self.string(fields["family"], "rules.family")), try Self.string(fields["weight"], "rules.weight"),
                try Self.string(fields["style"], "rules.style"), try Self.string(fields["range"], "rules.range"),
                Self.urls(in: try Self.string(fields["src"], "rules.src"))
            )
        }
        fonts = try Self.array(fields["faces"], "faces").map { (face) throws(HostError) -> FontFaceReport in
            let fields = try Self.object(face, "a font face")
            let family = Self.unquoted(try Self.string(fields["family"], "faces.family"))
            let weight = try Self.string(fields["weight"], "faces.weight")
            let style = try Self.string(fields["style"], "faces.style")
            let range = try Self.string(fields["range"], "faces.range")
            guard case .bool(let needed) = fields["needed"] else { throw Self.malformed("'faces.needed' is not a boolean") }
            let sameFamily = rules.filter { $0.family == family }
            let sameFace = sameFamily.filter { Self.same($0.weight, weight) && Self.same($0.style, style) }
            let rule = sameFace.first { Self.sameRange($0.range, range) } ?? sameFace.first ?? sameFamily.first
            return FontFaceReport(
                family: family, weight: weight, style: style, status: try Self.string(fields["status"], "faces.status"),
                sources: rule?.sources ?? [], unicodeRange: range, needed: needed)
        }
        errors = try Self.array(fields["errors"], "errors").map { (error) throws(HostError) in try Self.scriptError(error) }
        blocked = try Self.array(fields["blocked"], "blocked").map { (blocked) throws(HostError) in try Self.blockedRequest(blocked) }
        hints = []
        for hint in try Self.array(fields["hints"], "hints") {
            if let read = try Self.linkHint(hint) { hints.append(read) }
        }
    }

    /// A `{"kind":"error",…}` report of the observer script.
    package static func scriptError(_ json: JSONValue) throws(HostError) -> Numbered<ScriptError> {
        let fields = try object(json, "a script error")
        return Numbered(
            id: try string(fields["id"], "id"),
            value: ScriptError(
                message: try string(fields["message"], "message"), source: try string(fields["source"], "source"),
                line: try integer(fields["line"], "line"), column: try integer(fields["column"], "column")))
    }

    /// A `{"kind":"blocked",…}` report of the observer script.
    package static func blockedRequest(_ json: JSONValue) throws(HostError) -> Numbered<BlockedRequest> {
        let fields = try object(json, "a blocked request")
        return Numbered(
            id: try string(fields["id"], "id"),
            value: BlockedRequest(url: try string(fields["url"], "url"), reason: try string(fields["directive"], "directive")))
    }

    /// A `{"kind":"hint",…}` report: a link hint to a remote URL, nil for a rel that is not one
    /// of the hints the engine could act on.
    package static func linkHint(_ json: JSONValue) throws(HostError) -> Numbered<BlockedRequest>? {
        let fields = try object(json, "a link hint")
        let rel = try string(fields["rel"], "rel")
        guard ["preconnect", "dns-prefetch", "prefetch", "prerender"].contains(rel) else { return nil }
        return Numbered(id: try string(fields["id"], "id"), value: BlockedRequest(url: try string(fields["url"], "url"), reason: rel))
    }

    // MARK: Reading

    private static func malformed(_ what: String) -> HostError {
        HostError(.renderer, "the page's readiness script answered malformed data (\(what))")
    }

    package static func object(_ value: JSONValue?, _ what: String) throws(HostError) -> [String: JSONValue] {
        guard case .object(let fields) = value else { throw malformed("\(what) is not an object") }
        return fields
    }

    private static func array(_ value: JSONValue?, _ what: String) throws(HostError) -> [JSONValue] {
        guard case .array(let items) = value else { throw malformed("'\(what)' is not an array") }
        return items
    }

    package static func string(_ value: JSONValue?, _ what: String) throws(HostError) -> String {
        guard case .string(let text) = value else { throw malformed("'\(what)' is not a string") }
        return text
    }

    private static func integer(_ value: JSONValue?, _ what: String) throws(HostError) -> Int {
        guard case .int(let number) = value, let result = Int(exactly: number) else { throw malformed("'\(what)' is not an integer") }
        return result
    }

    /// `"Open Sans"` → `Open Sans`.
    package static func unquoted(_ family: String) -> String {
        guard family.count >= 2, let first = family.first, first == "\"" || first == "'", family.last == first else { return family }
        return String(family.dropFirst().dropLast())
    }

    /// A rule's descriptor matches a face's value (an absent descriptor is `normal`).
    private static func same(_ rule: String, _ face: String) -> Bool {
        (rule.isEmpty ? "normal" : rule) == face
    }

    /// Two `unicode-range` values name the same range (an absent one is every character).
    private static func sameRange(_ rule: String, _ face: String) -> Bool {
        let all = "U+0-10FFFF"
        return (rule.isEmpty ? all : rule).uppercased() == (face.isEmpty ? all : face).uppercased()
    }

    /// The `url(…)` values of a `src` descriptor, as WebKit serialises it.
    package static func urls(in source: String) -> [String] {
        var found: [String] = []
        var rest = Substring(source)
        while let open = rest.range(of: "url(") {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: ")") else { break }
            var url = rest[..<close].trimmingCharacters(in: .whitespaces)[...]
            if let first = url.first, first == "\"" || first == "'", url.count >= 2, url.last == first {
                url = url.dropFirst().dropLast()
            }
            found.append(String(url))
            rest = rest[close...]
        }
        return found
    }
}
