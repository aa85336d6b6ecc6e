import Foundation
import LarderFormat

/// Where a publish finds the earlier revisions it makes patches from: the bundles to try, newest
/// first, and the target that holds their manifests and objects (read through
/// ``PublishTarget/read(_:limit:)``, each checked against its digest).
struct PatchSource {
    /// The earlier bundles for a new bundle's manifest, newest first (the new bundle itself and
    /// ones the target lacks are skipped later).
    let candidates: (Manifest) throws(PublishError) -> [Digest]
    let target: any PublishTarget

    /// A journey's earlier revisions, newest first: its document's bundle, then its history.
    /// Read when a bundle needs them (a bundle the target has whole needs none), so publishing
    /// what is there already asks nothing more of the target.
    static func journey(_ id: String, on target: some PublishTarget) -> PatchSource {
        PatchSource(
            candidates: { (_) throws(PublishError) -> [Digest] in
                let state = try JourneyState.read(journey: id, from: target)
                var bundles: [Digest] = []
                if let document = state.document { bundles.append(document.bundle) }
                for entry in state.history.entries.reversed() where !bundles.contains(entry.bundle) { bundles.append(entry.bundle) }
                return bundles
            }, target: target)
    }

    /// For plain bundles in an origin folder: the bundles of the same name published there
    /// before, newest manifest first (the newest ``scanned`` manifests are read).
    static func sameName(in origin: String) -> PatchSource {
        let target = LocalFolderTarget(folder: origin)
        return PatchSource(
            candidates: { (manifest) throws(PublishError) -> [Digest] in
                var found: [Digest] = []
                for digest in try newestBundles(in: origin) {
                    guard found.count <= PatchPolicy.previousRevisions else { break }
                    if let earlier = try readManifest(digest, from: target), earlier.name == manifest.name { found.append(digest) }
                }
                return found
            }, target: target)
    }

    /// How many of the newest manifests ``sameName(in:)`` reads.
    static let scanned = 64

    private static func newestBundles(in origin: String) throws(PublishError) -> [Digest] {
        let folder = origin + "/bundles"
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder) } catch {
            throw PublishError(.local, "cannot list the folder: \(error.localizedDescription)", path: folder)
        }
        var dated: [(Digest, Date)] = []
        for name in names where name.utf8.count == 64 {
            guard let digest = try? Digest(hex: name) else { continue }  // not a bundle's folder: nothing to patch from
            let path = folder + "/" + name + "/manifest.json"
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), let date = attributes[.modificationDate] as? Date
            else { continue }  // no manifest: not a published bundle
            dated.append((digest, date))
        }
        return dated.sorted { $0.1 > $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }.prefix(scanned).map(\.0)
    }

    /// An earlier bundle's manifest, nil when the target lacks it or it is not what its name says.
    static func readManifest(_ bundle: Digest, from target: some PublishTarget) throws(PublishError) -> Manifest? {
        guard let stored = try target.read("bundles/\(bundle.hex)/manifest.json", limit: Manifest.maximumBytes),
            SHA256Hasher.hash(stored.bytes) == bundle
        else { return nil }
        return try? Manifest(decoding: stored.bytes)  // a damaged earlier manifest only means no patches from it
    }

    /// The manifests of up to ``PatchPolicy/previousRevisions`` earlier bundles of `manifest`.
    func bases(for manifest: Manifest, bundle: Digest) throws(PublishError) -> [Manifest] {
        var bases: [Manifest] = []
        for candidate in try candidates(manifest) where candidate != bundle {
            guard bases.count < PatchPolicy.previousRevisions else { break }
            if let earlier = try Self.readManifest(candidate, from: target) { bases.append(earlier) }
        }
        return bases
    }

    /// An earlier object's bytes, nil when the target lacks it or holds other bytes.
    func object(_ digest: Digest) throws(PublishError) -> [UInt8]? {
        guard let stored = try target.read("objects/\(digest.hex)", limit: Int(PatchPolicy.limits.maximumOutputBytes)) else { return nil }
        return SHA256Hasher.hash(stored.bytes) == digest ? stored.bytes : nil
    }
}
