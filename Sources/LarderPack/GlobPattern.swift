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
///
/// Matching never backtracks more than one step: within a segment, `*` is matched greedily
/// with one saved restart point (the last `*` seen), and across segments `**` the same way
/// with segments as the units, so each pair of a pattern position and a name position is
/// compared at most once (the classic wildcard algorithm; a match through an earlier `*` is
/// never lost by restarting at the last one, because that one can absorb whatever the earlier
/// one would have).
public struct GlobPattern: Sendable, Equatable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    private let segments: [Segment]
    private let anchored: Bool
    private let foldersOnly: Bool

    /// One pattern segment: `**`, or the tokens of a name pattern.
    private enum Segment: Sendable, Equatable {
        case anyFolders
        case name([Token])
    }

    private enum Token: Sendable, Equatable {
        case scalar(Unicode.Scalar)
        /// `?`
        case anyScalar
        /// `*` (consecutive ones are one)
        case star
        /// `[...]`: closed ranges (a lone character is a range of one), negated by `!` or `^`.
        case set([ClosedRange<UInt32>], negated: Bool)

        func matches(_ scalar: Unicode.Scalar) -> Bool {
            switch self {
            case .scalar(let expected): return scalar == expected
            case .anyScalar: return true
            case .star: return false
            case .set(let ranges, let negated): return ranges.contains { $0.contains(scalar.value) } != negated
            }
        }
    }

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
        anchored = rooted || parts.count > 1
        var segments: [Segment] = []
        for part in parts {
            guard !part.isEmpty else { throw invalid("has an empty segment") }
            guard part != ".", part != ".." else { throw invalid("'.' and '..' segments match nothing in a bundle") }
            guard let tokens = Self.tokens(Array(part.unicodeScalars)) else { throw invalid("has a '[' without its ']'") }
            segments.append(part == "**" && anchored ? .anyFolders : .name(tokens))
        }
        self.segments = segments
    }

    public var description: String { text }

    /// Whether the pattern matches this bundle path itself.
    /// - Parameters:
    ///   - isFolder: the path names a folder (a pattern ending in `/` matches only those).
    ///   - path: a bundle path, relative to the source folder.
    /// - Complexity: O(*p* × *n*) for a pattern of *p* and a path of *n* characters, whatever
    ///   its `*` and `**`.
    public func matches(_ path: String, isFolder: Bool) -> Bool {
        var steps = 0
        return matches(path, isFolder: isFolder, steps: &steps)
    }

    /// ``matches(_:isFolder:)``, counting its work in `steps`: one per position compared or
    /// restarted from, at most (pattern characters + 1) × (path characters + 1).
    package func matches(_ path: String, isFolder: Bool, steps: inout Int) -> Bool {
        if foldersOnly && !isFolder { return false }
        let parts = path.split(separator: "/").map { Array($0.unicodeScalars) }
        guard let last = parts.last else { return false }
        func name(_ tokens: [Token], _ name: [Unicode.Scalar]) -> Bool {
            Self.wildcard(tokens, name, isStar: { $0 == .star }, matches: { $0.matches($1) }, step: { steps += 1 })
        }
        if !anchored, case .name(let tokens) = segments[0] { return name(tokens, last) }
        return Self.wildcard(
            segments, parts, isStar: { $0 == .anyFolders },
            matches: { segment, part in
                guard case .name(let tokens) = segment else { return false }
                return name(tokens, part)
            },
            step: { steps += 1 })
    }

    /// Whether the pattern matches this file's path or one of the folders it is in.
    /// - Complexity: O(*d* × *p* × *n*) for a path *d* folders deep.
    public func covers(file path: String) -> Bool {
        if matches(path, isFolder: false) { return true }
        var folder = Substring(path)
        while let slash = folder.lastIndex(of: "/") {
            folder = folder[..<slash]
            if matches(String(folder), isFolder: true) { return true }
        }
        return false
    }

    /// The classic wildcard match of `elements` against `pattern`, where a star item matches
    /// any run of elements and every other item one element: used for the characters of a
    /// name (`*` the star) and for the segments of a path (`**` the star, a name pattern
    /// matching one segment). Past a mismatch only the last star is tried again, one element
    /// further, so each pair of positions is compared at most once.
    /// - Complexity: O(*p* × *n*) comparisons for *p* items and *n* elements.
    private static func wildcard<Item, Element>(
        _ pattern: [Item], _ elements: [Element], isStar: (Item) -> Bool, matches: (Item, Element) -> Bool, step: () -> Void
    ) -> Bool {
        var next = 0
        var position = 0
        var restart: (pattern: Int, element: Int)?
        while position < elements.count {
            step()
            if next < pattern.count {
                if isStar(pattern[next]) {
                    restart = (next + 1, position)
                    next += 1
                    continue
                }
                if matches(pattern[next], elements[position]) {
                    next += 1
                    position += 1
                    continue
                }
            }
            // The last star takes one more element; everything after it starts again there.
            guard let saved = restart else { return false }
            restart = (saved.pattern, saved.element + 1)
            next = saved.pattern
            position = saved.element + 1
        }
        while next < pattern.count, isStar(pattern[next]) { next += 1 }
        return next == pattern.count
    }

    /// The tokens of one segment; nil when a `[` is not closed. In a set, a `]` right after
    /// the `[` (or `[!`) is a member, and `a-z` a range unless the `-` comes last.
    private static func tokens(_ scalars: [Unicode.Scalar]) -> [Token]? {
        var tokens: [Token] = []
        var index = 0
        while index < scalars.count {
            switch scalars[index] {
            case "*":
                if tokens.last != .star { tokens.append(.star) }
                index += 1
            case "?":
                tokens.append(.anyScalar)
                index += 1
            case "[":
                index += 1
                let negated = index < scalars.count && (scalars[index] == "!" || scalars[index] == "^")
                if negated { index += 1 }
                var ranges: [ClosedRange<UInt32>] = []
                var closed = false
                var first = true
                while index < scalars.count {
                    let item = scalars[index]
                    if item == "]" && !first {
                        closed = true
                        index += 1
                        break
                    }
                    first = false
                    if index + 2 < scalars.count, scalars[index + 1] == "-", scalars[index + 2] != "]" {
                        let upper = scalars[index + 2].value
                        if item.value <= upper { ranges.append(item.value...upper) }  // `z-a` matches nothing
                        index += 3
                    } else {
                        ranges.append(item.value...item.value)
                        index += 1
                    }
                }
                guard closed else { return nil }
                tokens.append(.set(ranges, negated: negated))
            case let scalar:
                tokens.append(.scalar(scalar))
                index += 1
            }
        }
        return tokens
    }
}
