import Foundation
import LarderFormat

/// The revisions an origin published for a journey, oldest first: `journeys/<id>.history.json`
/// beside the journey's document. It is what a rollback chooses from, so an earlier bundle can
/// be published again without its archive file. It is written bounded
/// (``bounded(for:)``, JourneyHistory+Bound.swift): the newest ``keptRevisions`` and the ones a
/// rollback or the current rollout still needs.
public struct JourneyHistory: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var revision: Int64
        public var bundle: Digest
        /// When the revision was published (the document's `published`).
        public var published: String
        /// The key id that signed it, nil when unsigned.
        public var signer: String?
        /// The revision this one rolled back to, nil for an ordinary publish.
        public var rollbackTo: Int64?

        public init(revision: Int64, bundle: Digest, published: String, signer: String?, rollbackTo: Int64? = nil) {
            self.revision = revision
            self.bundle = bundle
            self.published = published
            self.signer = signer
            self.rollbackTo = rollbackTo
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry] = []) { self.entries = entries }

    /// The history file's path relative to the origin.
    public static func path(journey: String) -> String { "journeys/\(journey).history.json" }

    /// The largest history read: 8 MiB, twice what Larder before the bound could read, so a
    /// history it wrote past its own limit (about 28,000 revisions, 4 MiB and one entry) still
    /// reads, and rollback still works; the next write bounds it. A written history is far
    /// below (``keptRevisions`` entries of about 150 bytes), and never above this.
    public static let maximumBytes = 8 << 20

    /// Reads a journey's history; empty when it has none yet.
    /// - Throws: `FormatError` when the file is there but is not a history.
    public static func read(journey: String, origin: String) throws(FormatError) -> JourneyHistory {
        let full = origin + "/" + path(journey: journey)
        guard FileManager.default.fileExists(atPath: full) else { return JourneyHistory() }
        do { return try parse(try ReadableFile(path: full).readAll(limit: maximumBytes), path: full) } catch { throw error.at(path: full) }
    }

    static func parse(_ bytes: [UInt8], path full: String) throws(FormatError) -> JourneyHistory {
        guard case .array(let values) = try JSONValue.parse(bytes, maximumValues: 1 << 20) else {
            throw FormatError(.invalidManifest, "a journey history is a JSON array", path: full)
        }
        var entries: [Entry] = []
        for (index, value) in values.enumerated() {
            guard case .object(let members) = value, case .int(let revision)? = members["revision"],
                case .string(let bundle)? = members["bundle"], case .string(let published)? = members["published"]
            else { throw FormatError(.invalidManifest, "not a history entry", path: full, field: "[\(index)]") }
            var signer: String?
            if case .string(let text)? = members["signer"] { signer = text }
            var rollbackTo: Int64?
            if case .int(let revision)? = members["rollbackTo"] { rollbackTo = revision }
            entries.append(
                Entry(revision: revision, bundle: try Digest(parsing: bundle), published: published, signer: signer, rollbackTo: rollbackTo))
        }
        return JourneyHistory(entries: entries)
    }

    /// Canonical JSON: an array of entries, oldest first.
    public var bytes: [UInt8] {
        JSONValue.array(
            entries.map { entry in
                var members: [String: JSONValue] = [
                    "revision": .int(entry.revision), "bundle": .string(entry.bundle.description), "published": .string(entry.published),
                    "signer": entry.signer.map { .string($0) } ?? .null,
                ]
                if let rollbackTo = entry.rollbackTo { members["rollbackTo"] = .int(rollbackTo) }
                return .object(members)
            }
        ).canonicalBytes
    }

    /// The entry a rollback goes to: revision `revision`, or without one the newest earlier
    /// revision whose bundle differs from `current`'s.
    /// - Throws: `FormatError.Code.invalidManifest` when there is none, or it is the bundle
    ///   already published.
    public func rollbackTarget(from current: JourneyDocument, to revision: Int64?) throws(FormatError) -> Entry {
        if let revision {
            guard let entry = entries.last(where: { $0.revision == revision }) else {
                let pruned = entries.first.map { revision < $0.revision } ?? false
                throw FormatError(
                    .invalidManifest,
                    "journey '\(current.journey)' has no revision \(revision) in its history"
                        + (pruned ? " (it keeps the newest \(Self.keptRevisions) revisions and the ones a rollback or rollout still needs; 'larder journey history' lists them)" : ""))
            }
            guard entry.bundle != current.bundle else {
                throw FormatError(.invalidManifest, "revision \(revision) has the bundle revision \(current.revision) already serves")
            }
            return entry
        }
        guard let entry = entries.last(where: { $0.revision < current.revision && $0.bundle != current.bundle }) else {
            throw FormatError(.invalidManifest, "journey '\(current.journey)' has no earlier revision with another bundle to roll back to")
        }
        return entry
    }
}
