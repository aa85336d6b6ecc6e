import Foundation
import LarderFormat

/// An origin's publishable keys and the journeys each may read: `access/keys.map` and
/// `access/grants.map`, included by nginx's `map` blocks (Tools/origin).
///
/// Lines are anchored regular expressions (`"~^pk_live_1$" 1;`, `"~^pk_live_1:paywall$" 1;`):
/// nginx compares plain map keys without regard to case, so "PK_1" would pass for "pk_1".
/// Every change replaces a whole map through a temporary file and a rename: nginx, reloading
/// at any moment, reads the old map or the new one, never half of one; and it is made holding
/// the origin's lock (`OriginLock`), so concurrent `larder keys` runs lose no change. nginx reads the maps
/// only when it (re)loads: run `Tools/origin/origin.sh reload` after a change.
public struct AccessMaps: Sendable {
    public let origin: String

    public init(origin: String) { self.origin = origin }

    static let keysPath = "access/keys.map"
    static let grantsPath = "access/grants.map"

    /// Each key with the journeys granted to it, by key.
    public func list() throws(FormatError) -> [String: Set<String>] {
        var keys: [String: Set<String>] = [:]
        for line in try lines(Self.keysPath) {
            if let key = Self.name(in: line) { keys[key, default: []] = keys[key] ?? [] }
        }
        for line in try lines(Self.grantsPath) {
            guard let pair = Self.name(in: line), let colon = pair.firstIndex(of: ":") else { continue }
            keys[String(pair[..<colon]), default: []].insert(String(pair[pair.index(after: colon)...]))
        }
        return keys
    }

    /// Grants `key` the journey (and makes the key known); returns the maps that changed.
    @discardableResult
    public func grant(_ key: String, journey: String) throws(FormatError) -> [String] {
        try OriginLock.holding(origin) { () throws(FormatError) -> [String] in try grantHoldingLock(key, journey: journey) }
    }

    /// ``grant(_:journey:)`` for a caller that holds the origin's lock already.
    func grantHoldingLock(_ key: String, journey: String) throws(FormatError) -> [String] {
        var changed: [String] = []
        if try add(Self.line(key), to: Self.keysPath) { changed.append(Self.keysPath) }
        if try add(Self.line(key + ":" + journey), to: Self.grantsPath) { changed.append(Self.grantsPath) }
        return changed
    }

    /// Removes `key` and all its grants; returns the maps that changed (none: the key was not
    /// there).
    @discardableResult
    public func revoke(_ key: String) throws(FormatError) -> [String] {
        try OriginLock.holding(origin) { () throws(FormatError) -> [String] in try revokeHoldingLock(key) }
    }

    private func revokeHoldingLock(_ key: String) throws(FormatError) -> [String] {
        var changed: [String] = []
        let keyLine = Self.line(key)
        let keyLines = try lines(Self.keysPath)
        if keyLines.contains(keyLine) {
            try write(keyLines.filter { $0 != keyLine }, to: Self.keysPath)
            changed.append(Self.keysPath)
        }
        let grantLines = try lines(Self.grantsPath)
        let kept = grantLines.filter { Self.name(in: $0).map { !$0.hasPrefix(key + ":") } ?? true }
        if kept.count != grantLines.count {
            try write(kept, to: Self.grantsPath)
            changed.append(Self.grantsPath)
        }
        return changed
    }

    /// Creates empty maps where there are none (nginx refuses to start on a missing include).
    func createMissing() throws(FormatError) -> [String] {
        var created: [String] = []
        for map in [Self.keysPath, Self.grantsPath] where !FileManager.default.fileExists(atPath: origin + "/" + map) {
            try write([], to: map)
            created.append(map)
        }
        return created
    }

    /// A map line for a key (or `key:journey`); `.` is the only character of a valid name
    /// that means something in a regular expression.
    static func line(_ name: String) -> String {
        "\"~^\(name.replacingOccurrences(of: ".", with: "\\."))$\" 1;"
    }

    /// The key (or `key:journey`) a line names, nil for a line this type did not write.
    static func name(in line: String) -> String? {
        guard line.hasPrefix("\"~^"), line.hasSuffix("$\" 1;") else { return nil }
        return String(line.dropFirst(3).dropLast(5)).replacingOccurrences(of: "\\.", with: ".")
    }

    private func lines(_ path: String) throws(FormatError) -> [String] {
        let full = origin + "/" + path
        guard FileManager.default.fileExists(atPath: full) else { return [] }
        return String(decoding: try ReadableFile(path: full).readAll(limit: 64 << 20), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Adds a line unless it is there; returns whether the map changed.
    private func add(_ line: String, to path: String) throws(FormatError) -> Bool {
        var lines = try lines(path)
        guard !lines.contains(line) else { return false }
        lines.append(line)
        try write(lines, to: path)
        return true
    }

    private func write(_ lines: [String], to path: String) throws(FormatError) {
        try FormatError.typed { try FileManager.default.createDirectory(atPath: origin + "/access", withIntermediateDirectories: true) }
        let text = lines.isEmpty ? "" : lines.sorted().joined(separator: "\n") + "\n"
        try OriginPublisher.replace(Array(text.utf8), at: path, in: origin)
    }
}
