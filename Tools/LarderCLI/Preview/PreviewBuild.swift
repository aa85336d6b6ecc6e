import Foundation
import LarderFormat
import LarderPack

/// One pack of the previewed folder, through the real pipeline (the packer, the font cache):
/// the files as the archive holds them, by bundle path, or the errors that stopped the pack,
/// each with its `file:line:column`.
struct PreviewBuild: Sendable {
    /// Counts the builds: the page reloads when it changes.
    var version: Int
    var manifest: Manifest?
    var files: [String: [UInt8]] = [:]
    /// The pack's errors (`file:line:column: message`), empty when it packed.
    var errors: [String] = []
    /// Its warnings, as `larder pack` prints them.
    var warnings: [String] = []
    /// How long the pack and the reading of its archive took.
    var duration: Duration = .zero

    /// The entry document's path, nil when the pack failed.
    var entry: String? { manifest?.entry }

    /// Packs `source` into `scratch` (the archive is read back, then removed).
    static func make(source: String, scratch: String, version: Int) -> PreviewBuild {
        let clock = ContinuousClock()
        let start = clock.now
        var build = PreviewBuild(version: version)
        do throws(PackFailure) {
            let report = try Packer.pack(source: source, into: scratch)
            build.warnings = report.warnings.map { ($0.place.map { $0 + ": " } ?? "") + $0.message }
            do throws(FormatError) { try read(report.archivePath, into: &build) } catch {
                build.errors = ["\(report.archivePath): \(error.message)"]
            }
            removeArchive(report.archivePath)
        } catch {
            build.errors = error.errors.map(\.description)
        }
        build.duration = clock.now - start
        return build
    }

    /// Reads the archive's manifest and files.
    private static func read(_ archive: String, into build: inout PreviewBuild) throws(FormatError) {
        let reader = try ArchiveReader(path: archive)
        while let entry = try reader.next() {
            guard entry.kind == .file else { continue }
            let bytes = try reader.readAll(limit: 256 << 20)
            if entry.path == Manifest.entryName {
                build.manifest = try Manifest(decoding: bytes)
            } else {
                build.files[entry.path] = bytes
            }
        }
    }

    private static func removeArchive(_ path: String) {
        do { try FileManager.default.removeItem(atPath: path) } catch {
            FileHandle.standardError.write(Data("larder: could not remove \(path): \(error)\n".utf8))
        }
    }
}
