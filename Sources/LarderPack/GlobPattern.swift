/// A `larder.json` `exclude` or `include` pattern, matched against bundle paths the way
/// `.gitignore` lines are:
///
/// - `*` matches any run of characters within one path segment, `?` one character, `[abc]`,
///   `[a-z]` and `[!abc]` one character of (or not of) a set; `**` as a whole segment matches
///   any number of segments, none included.
/// - A pattern without `/` (other than a trailing one) matches a file or folder name at any
///   depth: `test` matches `test`, `a/test` and `a/b/test`.
/// - Any other pattern is anchored at the bundle root (a leading `/` is optional):
///   `unpacked/*.js` matches `unpacked/a.js` but not `x/unpacked/a.js`.
/// - A trailing `/` matches folders only.
/// - A folder that matches stands for everything below it.
public struct GlobPattern: Sendable, Equatable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    private let segments: [[Unicode.Scalar]]
    private let anchored: Bool
    private let foldersOnly: Bool

    /// - Throws: ``PackError`` (`invalid-configuration`) for an empty pattern, one with an
    ///   empty segment (`a//b`), a `.` or `..` segment, or an unclosed `[`.
    public init(_ text: String) throws(PackError) {
        func invalid(_ why: String) -> PackError {
            PackError(.invalidConfiguration, "pattern '\(text)': \(why)", path: BundleConfiguration.fileName)
        }
        self.text = text
        var body = Substring(text)
        foldersOnly = body.hasSuffix("/")
        if foldersOnly { body = body.dropLast() }
        let rooted = body.hasPrefix("/")
        if rooted { body = body.dropFirst() }
        guard !body.isEmpty, text.utf8.count <= 1000 else { throw invalid("must name something, in at most 1000 bytes") }
        let parts = body.split(separator: "/", omittingEmptySubsequences: false)
        for part in parts {
            guard !part.isEmpty else { throw invalid("has an empty segment") }
            guard part != ".", part != ".." else { throw invalid("'.' and '..' segments match nothing in a bundle") }
            guard Self.classesAreClosed(Array(part.unicodeScalars)) else { throw invalid("has a '[' without its ']'") }
        }
        anchored = rooted || parts.count > 1
        segments = parts.map { Array($0.unicodeScalars) }
    }

    public var description: String { text }

    /// Whether the pattern matches this bundle path itself.
    /// - Parameter isFolder: the path names a folder (a pattern ending in `/` matches only those).
    /// - Complexity: O(*p* × *n*) for a pattern of *p* and a path of *n* characters in the usual
    ///   cases; patterns with several `*` or `**` may backtrack more.
    public func matches(_ path: String, isFolder: Bool) -> Bool {
        if foldersOnly && !isFolder { return false }
        let parts = path.split(separator: "/").map { Array($0.unicodeScalars) }
        guard !parts.isEmpty else { return false }
        if !anchored { return Self.matchSegment(segments[0][...], parts[parts.count - 1][...]) }
        return Self.matchPath(segments[...], parts[...])
    }

    /// Whether the pattern matches this file's path or one of the folders it is in.
    public func covers(file path: String) -> Bool {
        if matches(path, isFolder: false) { return true }
        var folder = Substring(path)
        while let slash = folder.lastIndex(of: "/") {
            folder = folder[..<slash]
            if matches(String(folder), isFolder: true) { return true }
        }
        return false
    }

    private static func matchPath(_ pattern: ArraySlice<[Unicode.Scalar]>, _ path: ArraySlice<[Unicode.Scalar]>) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        if first == ["*", "*"] {
            let rest = pattern.dropFirst()
            var remaining = path
            while true {
                if matchPath(rest, remaining) { return true }
                guard !remaining.isEmpty else { return false }
                remaining = remaining.dropFirst()
            }
        }
        guard let segment = path.first, matchSegment(first[...], segment[...]) else { return false }
        return matchPath(pattern.dropFirst(), path.dropFirst())
    }

    /// One segment against one name: `*`, `?` and bracket sets.
    private static func matchSegment(_ pattern: ArraySlice<Unicode.Scalar>, _ name: ArraySlice<Unicode.Scalar>) -> Bool {
        var pattern = pattern
        var name = name
        while let token = pattern.first {
            switch token {
            case "*":
                let rest = pattern.drop { $0 == "*" }
                if rest.isEmpty { return true }
                while true {
                    if matchSegment(rest, name) { return true }
                    guard !name.isEmpty else { return false }
                    name = name.dropFirst()
                }
            case "?":
                guard !name.isEmpty else { return false }
                pattern = pattern.dropFirst()
                name = name.dropFirst()
            case "[":
                guard let character = name.first, let (matched, rest) = matchClass(pattern.dropFirst(), character), matched else {
                    return false
                }
                pattern = rest
                name = name.dropFirst()
            default:
                guard name.first == token else { return false }
                pattern = pattern.dropFirst()
                name = name.dropFirst()
            }
        }
        return name.isEmpty
    }

    /// Matches `character` against the set after a `[`; returns whether it matched and the
    /// pattern after the `]`.
    private static func matchClass(
        _ body: ArraySlice<Unicode.Scalar>, _ character: Unicode.Scalar
    ) -> (Bool, ArraySlice<Unicode.Scalar>)? {
        var rest = body
        let negated = rest.first == "!" || rest.first == "^"
        if negated { rest = rest.dropFirst() }
        var matched = false
        var first = true
        while let item = rest.first {
            if item == "]" && !first { return (matched != negated, rest.dropFirst()) }
            first = false
            rest = rest.dropFirst()
            if rest.count >= 2, rest.first == "-", let upper = rest.dropFirst().first, upper != "]" {
                if item.value <= character.value && character.value <= upper.value { matched = true }
                rest = rest.dropFirst(2)
            } else if item == character {
                matched = true
            }
        }
        return nil
    }

    private static func classesAreClosed(_ segment: [Unicode.Scalar]) -> Bool {
        var index = 0
        while index < segment.count {
            if segment[index] == "[" {
                guard matchClass(segment[(index + 1)...], "a") != nil else { return false }
                // Skip to the `]` that closes it (the first one after at least one item).
                var close = index + 1
                if close < segment.count, segment[close] == "!" || segment[close] == "^" { close += 1 }
                close += 1
                while close < segment.count, segment[close] != "]" { close += 1 }
                index = close
            }
            index += 1
        }
        return true
    }
}
