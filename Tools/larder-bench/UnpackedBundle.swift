import Foundation
import LarderFormat

/// A packed bundle's files written out as a plain web site, for a web server to serve: each
/// `larder-font://sha256/<hex>` URL in its HTML and CSS becomes the relative path of the file
/// with that digest, so an engine loads the same bytes by path.
enum UnpackedBundle {
    static func write(archive: String, into folder: String) throws {
        let reader = try ArchiveReader(path: archive)
        let manifest = try BundleVerifier.readManifest(from: reader).manifest
        let byDigest = Dictionary(manifest.files.map { ($0.digest.hex, $0.path) }, uniquingKeysWith: { first, _ in first })
        while let entry = try reader.next() {
            guard entry.kind == .file, let file = manifest.file(at: entry.path) else { continue }
            var bytes = try reader.readAll(limit: Int(file.size))
            if file.role == .document || file.role == .style {
                let depth = file.path.split(separator: "/").count - 1
                let up = String(repeating: "../", count: depth)
                var text = String(decoding: bytes, as: UTF8.self)
                for (hex, path) in byDigest where text.contains(hex) {
                    text = text.replacingOccurrences(of: FontURL.prefix + hex, with: up + path)
                }
                bytes = Array(text.utf8)
            }
            let url = URL(fileURLWithPath: folder + "/" + file.path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
    }
}
