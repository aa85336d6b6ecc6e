import Foundation
import LarderFormat

/// The bundle archives of a run (`larder pack` output, named `<hex>.tar.gz`), with their
/// manifests.
struct Archives {
    struct Entry {
        var path: String
        var digest: Digest
        var manifest: Manifest
    }

    let entries: [Entry]

    /// Reads every `*.tar.gz` of `folder`, sorted by name.
    init(folder: String) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".tar.gz") }.sorted()
        entries = try names.map { name throws -> Entry in try Self.entry(at: folder + "/" + name) }
    }

    /// One archive and its manifest.
    static func entry(at path: String) throws -> Entry {
        let verified = try BundleVerifier.readManifest(from: ArchiveReader(path: path))
        return Entry(path: path, digest: verified.digest, manifest: verified.manifest)
    }

    /// The objects each bundle uses.
    var objects: [Digest: Set<Digest>] {
        Dictionary(entries.map { ($0.digest, Set($0.manifest.files.map(\.digest))) }) { first, _ in first }
    }

    /// The objects no other bundle of the run uses, of the bundle named `name`.
    func uniqueObjects(of name: String) -> [Digest] {
        guard let entry = entries.first(where: { $0.manifest.name == name }) else { return [] }
        let others = Set(entries.filter { $0.digest != entry.digest }.flatMap { $0.manifest.files.map(\.digest) })
        return entry.manifest.files.map(\.digest).filter { !others.contains($0) }.sorted()
    }
}
