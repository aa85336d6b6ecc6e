import Foundation
import LarderFormat
import LarderPack

/// `larder pack --expect <digest>`: whether the bundle came out as expected, and, when the
/// output folder holds the expected bundle's archive (`<hex>.tar.gz`, from an earlier pack or a
/// download), which files differ from its manifest.
struct PackExpectation {
    var expected: Digest
    var actual: Digest
    /// Nil when the expected manifest is not at hand (or could not be read: `unreadable` says why).
    var difference: ManifestDifference?
    var unreadable: String?

    var matches: Bool { expected == actual }

    init(expected: Digest, report: PackReport, outputFolder: String) {
        self.expected = expected
        actual = report.bundleDigest
        guard expected != actual else { return }
        let archive = outputFolder + "/" + expected.hex + ".tar.gz"
        guard FileManager.default.fileExists(atPath: archive) else { return }
        do {
            let old = try BundleVerifier.readManifest(from: try ArchiveReader(path: archive))
            guard old.digest == expected else {
                unreadable = "\(archive) does not hold the bundle its name says"
                return
            }
            let new = try BundleVerifier.readManifest(from: try ArchiveReader(path: report.archivePath)).manifest
            difference = ManifestDifference(old: old.manifest, new: new)
        } catch {
            unreadable = "cannot read the expected manifest from \(archive): \(error.message)"
        }
    }

    /// The error lines for people (only when it does not match), without the failure prefix
    /// (``Console/failure(_:)`` adds it).
    func text(label: String?) -> String {
        var lines = [(label.map { "\(shown($0)): " } ?? "") + "the bundle digest is \(actual), not the expected \(expected)"]
        if let difference {
            if difference.isEmpty {
                lines.append("  every file is as expected: the bundle's name, entry or renderer, or a file's role or media type, differ")
            }
            for change in difference.changed {
                lines.append("  changed  \(shown(change.path))  \(change.old.digest.hex.prefix(12)) -> \(change.new.digest.hex.prefix(12))")
            }
            for file in difference.added { lines.append("  added    \(shown(file.path))") }
            for file in difference.removed { lines.append("  removed  \(shown(file.path))") }
        } else if let unreadable {
            lines.append("  " + shown(unreadable))
        } else {
            lines.append("  (put the expected bundle's archive, \(expected.hex).tar.gz, in the output folder to list the files that differ)")
        }
        return lines.joined(separator: "\n")
    }

    /// `{"expected", "actual", "matches", and "changed"/"added"/"removed" when the expected
    /// manifest was at hand}`.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "expected": .string(expected.description), "actual": .string(actual.description), "matches": .bool(matches),
        ]
        if let difference {
            members["changed"] = .array(
                difference.changed.map {
                    .object([
                        "path": .string($0.path), "expected": .string($0.old.digest.description),
                        "actual": .string($0.new.digest.description),
                    ])
                })
            members["added"] = .array(difference.added.map { .string($0.path) })
            members["removed"] = .array(difference.removed.map { .string($0.path) })
        }
        if let unreadable { members["unreadable"] = .string(unreadable) }
        return .object(members)
    }
}
