import Foundation
import LarderTestSupport
import Testing
@testable import LarderPack

/// GlobPattern against the rules table, against the matcher it replaced (kept below as the
/// model: right, but exponential on patterns with several `*` or `**`), and against the
/// patterns that took that one seconds to minutes, with a bound on the work done.
@Suite struct GlobMatchingTests {
    /// Every documented rule, and the edges of bracket sets.
    @Test(arguments: [
        ("*", "a/b/anything", false, true),
        ("a*", "a", false, true),
        ("*a", "ba", false, true),
        ("a*b*c", "aXbYc", false, true),
        ("a*b*c", "aXbY", false, false),
        ("a**b", "ab", false, true),
        ("**", "a/b/c", false, true),
        ("a/**", "a", false, true),
        ("a/**", "a/b/c", false, true),
        ("a/**", "b/a/c", false, false),
        ("a/**/b", "a/b", false, true),
        ("a/**/b", "a/x/y/b", false, true),
        ("a/**/b", "a/x/y/c", false, false),
        ("**/a/**/b", "x/a/y/a/z/b", false, true),
        ("**/a/**/b/**/c", "a/b/a/b", false, false),
        ("/**/x", "x", false, true),
        ("x/", "x", true, true),
        ("x/", "x", false, false),
        ("x/y/", "x/y", true, true),
        ("?", "é", false, true),
        ("??", "é", false, false),
        ("[]]", "]", false, true),
        ("[!]]", "]", false, false),
        ("[!]]", "a", false, true),
        ("[a-]", "-", false, true),
        ("[]-a]", "^", false, true),
        ("[^a]", "b", false, true),
        ("[^a]", "a", false, false),
        ("[*]", "*", false, true),
        ("[*]", "a", false, false),
        ("[a-c][x-z]", "by", false, true),
        ("[a-c][x-z]", "bb", false, false),
        ("a\\b", "a\\b", false, true),
    ])
    func rules(_ pattern: String, _ path: String, _ isFolder: Bool, _ expected: Bool) throws {
        #expect(try GlobPattern(pattern).matches(path, isFolder: isFolder) == expected)
        #expect(try ReferenceGlobPattern(pattern).matches(path, isFolder: isFolder) == expected, "the model disagrees")
    }

    /// Random small patterns and paths over a few letters: the same answers as the model, for
    /// files and folders, and for what a pattern covers.
    @Test func agreesWithTheModelOnRandomCases() throws {
        var generator = SeededGenerator(state: 0x1a2b3c)
        let pieces = ["a", "b", "?", "*", "*", "[ab]", "[!a]", "[a-b]", "[]a]", "**", "/", "/"]
        var compared = 0
        for _ in 0..<6_000 {
            let text = (0..<Int.random(in: 1...7, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            guard let pattern = try? GlobPattern(text) else {
                #expect(throws: PackError.self) { try ReferenceGlobPattern(text) }
                continue
            }
            let model = try ReferenceGlobPattern(text)
            for _ in 0..<8 {
                let segments = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                    String((0..<Int.random(in: 1...4, using: &generator)).map { _ in "ab]".randomElement(using: &generator)! })
                }
                let path = segments.joined(separator: "/")
                for isFolder in [false, true] {
                    var steps = 0
                    #expect(
                        pattern.matches(path, isFolder: isFolder, steps: &steps) == model.matches(path, isFolder: isFolder),
                        "'\(text)' against '\(path)' (folder: \(isFolder))")
                    #expect(steps <= bound(text, path), "'\(text)' against '\(path)': \(steps) steps")
                }
                #expect(pattern.covers(file: path) == model.covers(file: path), "'\(text)' covering '\(path)'")
                compared += 1
            }
        }
        #expect(compared > 15_000)
    }

    /// The patterns that backtracked: `*a*a*a*a*a*a*b` took 7 s on a 50-letter name and more
    /// than a minute on 70; the `**` one more than a minute on 31 folders. The work is counted
    /// in steps (one per position compared or restarted from), never timed: at most (pattern
    /// characters + 1) × (path characters + 1), the bound every random case above keeps too.
    func bound(_ pattern: String, _ path: String) -> Int { (pattern.unicodeScalars.count + 1) * (path.unicodeScalars.count + 1) }

    @Test(arguments: [20, 50, 70, 255])
    func severalStarsTakeBoundedWork(_ letters: Int) throws {
        let pattern = try GlobPattern("*a*a*a*a*a*a*b")
        let name = String(repeating: "a", count: letters)
        var steps = 0
        #expect(!pattern.matches(name, isFolder: false, steps: &steps))
        #expect(steps <= bound(pattern.text, name), "\(steps) steps")
        steps = 0
        #expect(pattern.matches(name + "b", isFolder: false, steps: &steps))
        #expect(steps <= bound(pattern.text, name + "b"), "\(steps) steps")
    }

    @Test(arguments: [8, 31])
    func severalGlobstarsTakeBoundedWork(_ depth: Int) throws {
        let text = "**/**/**/**/**/a*a*a*a*a*a*b"
        let pattern = try GlobPattern(text)
        let path = Array(repeating: "aaaaaaaa", count: depth).joined(separator: "/")
        var steps = 0
        #expect(!pattern.matches(path, isFolder: false, steps: &steps))
        #expect(!pattern.covers(file: path))
        #expect(steps <= bound(text, path), "\(steps) steps")
        steps = 0
        #expect(pattern.matches(path + "b", isFolder: false, steps: &steps))
        #expect(steps <= bound(text, path + "b"), "\(steps) steps")
    }

    /// The longest pattern (1000 bytes of `*a`) against the longest path (32 segments of
    /// 255 letters, cut to 1024 bytes).
    @Test func theLongestPatternAgainstTheLongestPath() throws {
        let text = String(repeating: "*a", count: 499) + "*b"
        let pattern = try GlobPattern(text)
        let name = String(repeating: "a", count: 255)
        var steps = 0
        #expect(!pattern.matches(name, isFolder: false, steps: &steps))
        #expect(steps <= bound(text, name), "\(steps) steps")
        let deep = try GlobPattern("**/" + String(repeating: "*a", count: 400) + "*b")
        let path = (0..<32).map { _ in String(repeating: "a", count: 30) }.joined(separator: "/")
        steps = 0
        #expect(!deep.matches(path, isFolder: false, steps: &steps))
        #expect(steps <= bound(deep.text, path), "\(steps) steps")
    }
}

/// The matcher GlobPattern had until issue 20, copied as it was: the model the new one must
/// agree with. It recurses at every `*` and `**`, so several of them backtrack exponentially.
private struct ReferenceGlobPattern: Sendable, Equatable, CustomStringConvertible {
    /// The pattern as written.
    let text: String
    private let segments: [[Unicode.Scalar]]
    private let anchored: Bool
    private let foldersOnly: Bool

    /// - Throws: ``PackError`` (`invalid-configuration`) for an empty pattern, one with an
    ///   empty segment (`a//b`), a `.` or `..` segment, or an unclosed `[`.
    init(_ text: String) throws(PackError) {
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

    var description: String { text }

    /// Whether the pattern matches this bundle path itself.
    /// - Parameter isFolder: the path names a folder (a pattern ending in `/` matches only those).
    /// - Complexity: O(*p* × *n*) for a pattern of *p* and a path of *n* characters in the usual
    ///   cases; patterns with several `*` or `**` may backtrack more.
    func matches(_ path: String, isFolder: Bool) -> Bool {
        if foldersOnly && !isFolder { return false }
        let parts = path.split(separator: "/").map { Array($0.unicodeScalars) }
        guard !parts.isEmpty else { return false }
        if !anchored { return Self.matchSegment(segments[0][...], parts[parts.count - 1][...]) }
        return Self.matchPath(segments[...], parts[...])
    }

    /// Whether the pattern matches this file's path or one of the folders it is in.
    func covers(file path: String) -> Bool {
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
