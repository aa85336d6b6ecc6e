import Foundation
import LarderCache
import LarderFormat
import LarderPack
import LarderPublish

/// `larder diff <old> <new>`: what changed between two bundles and what the new one costs a
/// device that holds the old one.
enum DiffCommand {
    static let spec = CommandSpec(
        name: "diff",
        overview: "Show the files two bundles differ in and the bytes a device holding the old one downloads for the new one.",
        usage: "larder diff <old> <new> [--cache <dir> | --origin <dir>] [--json]",
        arguments: [
            ("<old>", "The bundle the device holds: an archive, or with --cache or --origin a digest."),
            ("<new>", "The bundle it fetches next, the same way."),
        ],
        options: [
            OptionSpec(names: ["--cache"], value: "dir", help: "Read both bundles from this cache (digest, hex prefix or name); read-only."),
            OptionSpec(names: ["--origin"], value: "dir", help: "Read both bundles from this origin folder (larder publish output)."),
            OptionSpec(names: ["--json"], value: nil, help: "Print the difference as JSON."),
        ],
        discussion: """
            Files are compared by path and digest: added, removed, changed. The download is what
            a fetch by objects moves: the new manifest, then each object the old bundle lacks
            (once, however many paths share it), as it travels: its gzip copy where the origin
            keeps one (the origin's own .gz with --origin; otherwise compressed here at level 9
            by the publisher's rule), its bytes otherwise. Per role too.

            With patches: what the same device moves when the origin has the patches
            `larder publish` writes for this pair (zstd with the old object of the same path
            as reference, kept when under half the object's wire size): the manifest, the
            patch index, the patches, and the other objects whole.

            EXIT STATUS: 0 compared, 64 usage error, 65 a corrupt archive, manifest or object,
            66 a missing archive, bundle or object.
            """)

    /// Where the two bundles come from.
    enum Source {
        case archives
        case cache(LarderCache)
        case origin(String)
    }

    struct Failure: Error {
        var message: String
        var status: ExitCode
        /// The error's code, for the `--json` failure object (``FailureJSON``).
        var code: String
    }

    static func run(_ arguments: [String]) -> ExitCode {
        let wantsJSON = FailureJSON.wanted(arguments)
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 2...2) } catch {
            return FailureJSON.usage(error, json: wantsJSON)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        if parsed.value("--cache") != nil && parsed.value("--origin") != nil {
            return FailureJSON.usage(UsageError(message: "--cache and --origin cannot be used together", command: spec), json: wantsJSON)
        }
        do throws(Failure) {
            let source: Source
            if let folder = parsed.value("--cache") {
                do throws(CacheError) {
                    try CacheFolder.requireExisting(folder)
                    source = .cache(try LarderCache(at: folder, configuration: .init(mode: .readOnly)))
                } catch {
                    // A FIFO or a link where the index belongs is refused, as a corrupt cache.
                    throw Failure(message: "\(error)", status: error.code == .foreignEntry ? .dataError : .noInput, code: error.code.rawValue)
                }
            } else if let folder = parsed.value("--origin") {
                source = .origin(folder)
            } else {
                source = .archives
            }
            let old = try manifest(parsed.positionals[0], from: source)
            let new = try manifest(parsed.positionals[1], from: source)
            let diff = try difference(old: old, new: new, oldOperand: parsed.positionals[0], newOperand: parsed.positionals[1], source: source)
            if parsed.flag("--json") { Console.json(json(diff)) } else { Console.out(text(diff)) }
            return .success
        } catch {
            return FailureJSON.failed(error.status, code: error.code, message: error.message, json: wantsJSON)
        }
    }

    static func manifest(_ operand: String, from source: Source) throws(Failure) -> Manifest {
        switch source {
        case .archives:
            guard FileManager.default.fileExists(atPath: operand) else { throw Failure(message: "\(operand): no such archive", status: .noInput, code: "no-input") }
            do {
                return try BundleVerifier.readManifest(from: try ArchiveReader(path: operand)).manifest
            } catch {
                throw Failure(message: "\(error.at(path: operand))", status: error.code == .io ? .noInput : .dataError, code: error.code.rawValue)
            }
        case .cache(let cache):
            do {
                return try cache.manifest(try CacheCommand.find(operand, in: cache).digest)
            } catch {
                throw Failure(message: "\(error)", status: error.code == .bundleNotFound ? .noInput : .dataError, code: error.code.rawValue)
            }
        case .origin(let folder):
            let digest = try parseDigest(operand)
            let path = folder + "/bundles/" + digest.hex + "/manifest.json"
            let bytes: [UInt8]
            do { bytes = try ReadableFile(path: path).readAll(limit: Manifest.maximumBytes) } catch {
                throw Failure(message: "\(path): \(error.message)", status: .noInput, code: error.code.rawValue)
            }
            do { return try VerifiedManifest(decoding: bytes, expecting: digest).manifest } catch where error.code == .digestMismatch {
                throw Failure(message: "\(path) does not hash to \(digest)", status: .dataError, code: error.code.rawValue)
            } catch {
                throw Failure(message: "\(path): \(error)", status: .dataError, code: error.code.rawValue)
            }
        }
    }

    static func parseDigest(_ text: String) throws(Failure) -> Digest {
        do {
            return text.hasPrefix(Digest.prefix) ? try Digest(parsing: text) : try Digest(hex: text)
        } catch {
            throw Failure(message: "'\(text)' is not a bundle digest (sha256:<64 hex> or <64 hex>)", status: .usage, code: "usage")
        }
    }

    static func difference(old: Manifest, new: Manifest, oldOperand: String, newOperand: String, source: Source) throws(Failure) -> BundleDiff {
        switch source {
        case .archives:
            // Compress the lacked objects as they come out of the new archive.
            let lacked = BundleDiff.lackedObjects(old: old, new: new)
            let wanted = Set(lacked.map(\.path))
            // The objects a patch could replace, and their bases: their bytes, by digest.
            let patchable = Set(lacked.filter { old.file(at: $0.path) != nil }.map(\.path))
            var sizes: [String: Int64] = [:]
            var kept: [Digest: [UInt8]] = [:]
            try read(newOperand, manifest: new, paths: wanted) { (file, bytes) throws(FormatError) in
                sizes[file.path] = try TravelSize.of(bytes, path: file.path)
                if patchable.contains(file.path) { kept[file.digest] = bytes }
            }
            try read(oldOperand, manifest: old, paths: patchable) { (file, bytes) throws(FormatError) in
                kept[file.digest] = bytes
            }
            var diff = try BundleDiff(old: old, new: new) { (file) throws(Failure) in
                guard let size = sizes[file.path] else {
                    throw Failure(message: "\(newOperand): '\(file.path)' is in the manifest but not in the archive", status: .dataError, code: FormatError.Code.missingEntry.rawValue)
                }
                return size
            }
            try diff.addPatches(old: old, new: new) { (file) throws(Failure) -> [UInt8] in
                guard let bytes = kept[file.digest] else {
                    throw Failure(message: "'\(file.path)' is in the manifest but not in the archive", status: .dataError, code: FormatError.Code.missingEntry.rawValue)
                }
                return bytes
            }
            return diff
        case .cache(let cache):
            func bytes(_ file: Manifest.File) throws(Failure) -> [UInt8] {
                do { return try cache.verifiedObject(file.digest, size: file.size) } catch {
                    throw Failure(message: "\(error)", status: error.code == .corruptObject ? .dataError : .noInput, code: error.code.rawValue)
                }
            }
            var diff = try BundleDiff(old: old, new: new) { (file) throws(Failure) in
                do { return try TravelSize.of(try bytes(file), path: file.path) } catch let error as Failure { throw error } catch {
                    throw Failure(message: "\(error)", status: .failure, code: "failure")
                }
            }
            try diff.addPatches(old: old, new: new, bytes: bytes)
            return diff
        case .origin(let folder):
            var diff = try BundleDiff(old: old, new: new) { (file) throws(Failure) in
                let object = folder + "/objects/" + file.digest.hex
                for candidate in [object + ".gz", object] where FileManager.default.fileExists(atPath: candidate) {
                    do {
                        if let size = try FileManager.default.attributesOfItem(atPath: candidate)[.size] as? Int64 { return size }
                    } catch {
                        throw Failure(message: "\(candidate): \(error.localizedDescription)", status: .noInput, code: "no-input")
                    }
                }
                throw Failure(message: "\(object): missing from the origin (publish the bundle again)", status: .noInput, code: "no-input")
            }
            try diff.addPatches(old: old, new: new) { (file) throws(Failure) -> [UInt8] in
                let path = folder + "/objects/" + file.digest.hex
                do throws(FormatError) {
                    let bytes = try ReadableFile(path: path).readAll(limit: Int(file.size))
                    guard SHA256Hasher.hash(bytes) == file.digest else { throw FormatError(.digestMismatch, "does not hash to its name", path: path) }
                    return bytes
                } catch {
                    throw Failure(message: "\(path): \(error.message)", status: error.code == .io ? .noInput : .dataError, code: error.code.rawValue)
                }
            }
            return diff
        }
    }

    /// Reads the files at `paths` out of an archive, each checked against the manifest.
    private static func read(
        _ archive: String, manifest: Manifest, paths: Set<String>, _ body: (Manifest.File, [UInt8]) throws(FormatError) -> Void
    ) throws(Failure) {
        guard !paths.isEmpty else { return }
        do throws(FormatError) {
            let reader = try ArchiveReader(path: archive)
            _ = try BundleVerifier.readManifest(from: reader)
            while let entry = try reader.next() {
                guard paths.contains(entry.path), let file = manifest.file(at: entry.path) else { continue }
                let bytes = try reader.readAll(limit: Int(file.size))
                guard SHA256Hasher.hash(bytes) == file.digest else {
                    throw FormatError(.digestMismatch, "does not match its digest in the manifest", entry: entry.path)
                }
                try body(file, bytes)
            }
        } catch {
            throw Failure(message: "\(archive): \(error)", status: .dataError, code: error.code.rawValue)
        }
    }

    static func text(_ diff: BundleDiff) -> String {
        var lines = [
            "Diff     \(diff.old) -> \(diff.new)",
            "  files  \(diff.files.changed.count) changed, \(diff.files.added.count) added, \(diff.files.removed.count) removed",
        ]
        for change in diff.files.changed {
            lines.append("  changed  \(shown(change.path))  \(humanSize(change.old.size)) -> \(humanSize(change.new.size))")
        }
        for file in diff.files.added { lines.append("  added    \(shown(file.path))  \(humanSize(file.size))") }
        for file in diff.files.removed { lines.append("  removed  \(shown(file.path))") }
        let total = diff.download.transfer + diff.manifestSize
        lines.append(
            "Download \(humanSize(total)): \(diff.download.objects) object\(diff.download.objects == 1 ? "" : "s"), "
                + "\(humanSize(diff.download.size)) stored, \(humanSize(diff.download.transfer)) on the wire, "
                + "and the manifest (\(humanSize(diff.manifestSize)))")
        if let patched = diff.withPatches, patched.patched.objects > 0 {
            lines.append(
                "With patches \(humanSize(diff.total(patched))): \(patched.patched.objects) object\(patched.patched.objects == 1 ? "" : "s") from patches "
                    + "(\(humanSize(patched.patched.transfer))), \(patched.whole.objects) whole (\(humanSize(patched.whole.transfer))), "
                    + "the patch index (\(humanSize(patched.indexSize))) and the manifest")
        }
        if !diff.byRole.isEmpty {
            var rows = [["ROLE", "OBJECTS", "STORED", "ON THE WIRE"]]
            for role in FileRole.allCases {
                guard let cost = diff.byRole[role] else { continue }
                rows.append([role.rawValue, String(cost.objects), humanSize(cost.size), humanSize(cost.transfer)])
            }
            lines.append("")
            lines.append(table(rows))
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ cost: BundleDiff.Cost) -> JSONValue {
        .object(["objects": .int(Int64(cost.objects)), "size": .int(cost.size), "transfer": .int(cost.transfer)])
    }

    static func json(_ file: Manifest.File) -> JSONValue {
        .object([
            "path": .string(file.path), "digest": .string(file.digest.description), "size": .int(file.size),
            "role": .string(file.role.rawValue),
        ])
    }

    static func json(_ diff: BundleDiff) -> JSONValue {
        var download = [String: JSONValue]()
        if case .object(let members) = json(diff.download) { download = members }
        download["total"] = .int(diff.download.transfer + diff.manifestSize)
        return .object([
            "old": .string(diff.old.description),
            "new": .string(diff.new.description),
            "added": .array(diff.files.added.map(json)),
            "removed": .array(diff.files.removed.map(json)),
            "changed": .array(
                diff.files.changed.map {
                    .object([
                        "path": .string($0.path), "role": .string($0.new.role.rawValue),
                        "oldDigest": .string($0.old.digest.description), "newDigest": .string($0.new.digest.description),
                        "oldSize": .int($0.old.size), "newSize": .int($0.new.size),
                    ])
                }),
            "manifestSize": .int(diff.manifestSize),
            "download": .object(download),
            "byRole": .object(Dictionary(uniqueKeysWithValues: diff.byRole.map { ($0.key.rawValue, json($0.value)) })),
            "withPatches": diff.withPatches.map { patched in
                .object([
                    "patched": json(patched.patched), "whole": json(patched.whole), "indexSize": .int(patched.indexSize),
                    "total": .int(diff.total(patched)),
                ])
            } ?? .null,
        ])
    }
}
