import LarderFormat
import LarderPack

/// The font faces of a pack or a bundle, for people and as JSON (`pack`, `inspect`).
enum FontReportText {
    /// One line per face (source, bytes before and after, outcome), one per subset (name, bytes,
    /// essential, ranges), and the characters kept for the text.
    static func text(_ faces: [PackedFontFace], indent: String = "  ") -> String {
        var lines: [String] = []
        for face in faces {
            let outcome =
                switch face.outcome {
                case .converted: "\(humanSize(face.sourceBytes)) -> \(humanSize(face.packedBytes)) WOFF2"
                case .woff2: "\(humanSize(face.sourceBytes)), WOFF2 already"
                case .unconverted: "\(humanSize(face.packedBytes)), packed as written (not converted)"
                }
            lines.append("\(indent)'\(face.family)' \(face.weight) \(face.style) (\(face.location)): \(face.source), \(outcome)")
            for subset in face.subsets {
                let ranges = subset.ranges.map { ": \($0)" } ?? ""
                lines.append("\(indent)  \(subset.name) \(humanSize(subset.bytes))\(subset.essential ? " essential" : "") \(subset.path)\(ranges)")
            }
            if !face.dropped.isEmpty { lines.append("\(indent)  not packed: \(face.dropped.joined(separator: ", "))") }
            for kept in face.kept { lines.append("\(indent)  kept \(kept.code) for \(kept.location) (in \(kept.subset))") }
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ faces: [PackedFontFace]) -> JSONValue {
        .array(
            faces.map { face in
                .object([
                    "location": .string(face.location.description),
                    "family": .string(face.family),
                    "weight": .string(face.weight),
                    "style": .string(face.style),
                    "outcome": .string(face.outcome.rawValue),
                    "source": .string(face.source),
                    "sourceBytes": .int(face.sourceBytes),
                    "packedBytes": .int(face.packedBytes),
                    "dropped": .array(face.dropped.map { .string($0) }),
                    "subsets": .array(
                        face.subsets.map { subset in
                            var members: [String: JSONValue] = [
                                "name": .string(subset.name), "path": .string(subset.path), "digest": .string(subset.digest.description),
                                "bytes": .int(subset.bytes), "essential": .bool(subset.essential),
                            ]
                            if let ranges = subset.ranges { members["unicodeRange"] = .string(ranges.description) }
                            return .object(members)
                        }),
                    "kept": .array(
                        face.kept.map { .object(["character": .string($0.code), "location": .string($0.location.description), "subset": .string($0.subset)]) }),
                ])
            })
    }

    /// `pack --json`'s `fonts`: the faces, the font cache's work and the libraries.
    static func json(_ report: FontPackReport) -> JSONValue {
        var members: [String: JSONValue] = [
            "faces": json(report.faces), "cacheHits": .int(Int64(report.cacheHits)), "conversions": .int(Int64(report.conversions)),
            "rejectedCacheEntries": .int(Int64(report.rejectedCacheEntries)),
            "verifiedCacheEntries": .int(Int64(report.verifiedCacheEntries)), "libraries": .string(report.libraries),
        ]
        if let folder = report.cacheFolder { members["cacheFolder"] = .string(folder) }
        return .object(members)
    }
}
