import LarderFormat
import LarderPack

/// `larder pack`'s warnings for people: one group per kind with its count and the first few
/// places (all of them with `--verbose`), on stderr. `--json` keeps every warning instead.
enum PackWarningsText {
    /// How many places a group shows without `--verbose`.
    static let shownPerKind = 5

    /// The groups, each a headline and its places; empty when there is nothing to say.
    /// - Parameter source: prefixed to each headline when several folders are packed.
    static func text(_ warnings: [PackWarning], verbose: Bool, source: String? = nil) -> String {
        var kinds: [PackWarning.Kind] = []
        var groups: [PackWarning.Kind: [PackWarning]] = [:]
        for warning in warnings {
            if groups[warning.kind] == nil { kinds.append(warning.kind) }
            groups[warning.kind, default: []].append(warning)
        }
        var lines: [String] = []
        for kind in kinds {
            let group = groups[kind]!
            lines.append("warning: " + (source.map { "\(shown($0)): " } ?? "") + headline(kind, count: group.count))
            let listed = verbose ? group[...] : group.prefix(shownPerKind)
            for warning in listed { lines.append("  " + line(warning)) }
            if listed.count < group.count { lines.append("  … and \(group.count - listed.count) more (--verbose lists all)") }
        }
        return lines.joined(separator: "\n")
    }

    private static func headline(_ kind: PackWarning.Kind, count: Int) -> String {
        let number = String(count)
        switch kind {
        case .unreferenced:
            return "\(number) unreferenced file\(count == 1 ? "" : "s"), packed but nothing the entry loads refers to "
                + "\(count == 1 ? "it" : "them") (list files loaded by script under \"include\" in larder.json, or leave "
                + "them out with \"exclude\"):"
        case .remoteReference:
            return "\(number) remote reference\(count == 1 ? "" : "s") loaded from the network, not from the bundle "
                + "(an error with --strict):"
        case .unmatchedInclude:
            return "\(number) include pattern\(count == 1 ? "" : "s") of larder.json match\(count == 1 ? "es" : "") no file:"
        case .unconvertedFont:
            return "\(number) font\(count == 1 ? "" : "s") packed as written, not converted (an error with --strict):"
        case .uncoveredCharacter:
            return "\(number) character\(count == 1 ? "" : "s") the text uses in no subset (\"keepUsed\": false; an error with --strict):"
        case .fontCache:
            return "the font cache could not be used:"
        default:
            return "\(number) \(kind.rawValue):"
        }
    }

    private static func line(_ warning: PackWarning) -> String {
        switch warning.kind {
        case .unreferenced: shown(warning.path ?? warning.message)
        case .remoteReference: "\(shown(warning.place ?? "")): \(shown(warning.url ?? warning.message))"
        default: (warning.place.map { "\(shown($0)): " } ?? "") + shown(warning.message)
        }
    }

    /// Every warning, for `--json`: `kind`, `message`, and `path`, `location`, `url` when known.
    static func json(_ warnings: [PackWarning]) -> JSONValue {
        .array(
            warnings.map { warning in
                var members: [String: JSONValue] = ["kind": .string(warning.kind.rawValue), "message": .string(warning.message)]
                if let path = warning.path { members["path"] = .string(path) }
                if let location = warning.location { members["location"] = .string(location.description) }
                if let url = warning.url { members["url"] = .string(url) }
                return .object(members)
            })
    }
}
