import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderPack

/// Packs web content as Debian ships it (Font Awesome 4.7, Bootstrap 4, jQuery UI's base theme,
/// MathJax 2.7, the Read-the-Docs theme, the Python 3.11 docs; `Tools/setup.sh` installs them):
/// no error, every font source and font preload rewritten, every font file's role `font`,
/// the same bytes twice, and a bundle that verifies.
@Suite(.serialized) struct RealWorldPackTests {
    static let fontExtensions: Set<String> = ["woff2", "woff", "ttf", "otf", "eot"]

    final class Scratch {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("larder-realworld-\(UUID().uuidString)").path
        deinit {
            do { try FileManager.default.removeItem(atPath: root) } catch { print("could not remove \(root): \(error)") }
        }
    }

    @Test(arguments: RealWorldSource.allCases)
    func packs(_ source: RealWorldSource) throws {
        let scratch = Scratch()
        let folder = scratch.root + "/" + source.rawValue
        try source.prepare(at: folder)
        let first = try Packer.pack(source: folder, into: scratch.root + "/first")
        let second = try Packer.pack(source: folder, into: scratch.root + "/second")
        #expect(first.bundleDigest == second.bundleDigest)
        #expect(first.archiveDigest == second.archiveDigest)
        #expect(
            FileManager.default.contentsEqual(atPath: first.archivePath, andPath: second.archivePath),
            "two packs of the same folder differ")

        let verification = try BundleVerifier.verify(archiveAt: first.archivePath)
        #expect(verification.isIntact, "\(verification.problems)")
        let manifest = try #require(verification.manifest)
        let byDigest = Dictionary(manifest.files.map { ($0.digest, $0) }, uniquingKeysWith: { first, _ in first })

        for file in manifest.files where Self.fontExtensions.contains(MediaType.fileExtension(of: file.path)) {
            #expect(file.role == .font, "\(file.path) is a \(file.role)")
        }
        var fontSources = 0
        let reader = try ArchiveReader(path: first.archivePath)
        _ = try BundleVerifier.readManifest(from: reader)
        while let entry = try reader.next() {
            guard let file = manifest.file(at: entry.path), file.role == .document || file.role == .style else { continue }
            let bytes = try reader.readAll(limit: Int(file.size))
            let references = bytes.withUnsafeBufferPointer { file.role == .document ? HTMLScanner.scan($0) : CSSScanner.scan($0) }
            for reference in references {
                if reference.kind == .fontSource || reference.kind == .fontPreload {
                    fontSources += 1
                    let font = try? FontURLText.digest(reference.url)
                    #expect(font != nil, "\(file.path): font source '\(reference.url)' was not rewritten")
                    if let font { #expect(byDigest[font]?.role == .font, "\(file.path): \(reference.url) is not a font of the bundle") }
                } else if reference.replaceRange != nil, case .local(let path) = ReferenceResolver.resolve(reference.url, from: file.path) {
                    #expect(manifest.file(at: path)?.role != .font, "\(file.path): '\(reference.url)' names a font by path")
                }
            }
        }
        // Every rewrite is a font source or preload found again in the packed files.
        #expect(fontSources == first.rewrittenFontReferences)
        switch source {
        case .fontAwesome:
            // Six @font-face sources in each of font-awesome.css and .min.css, and the preload.
            #expect(first.rewrittenFontReferences == 13)
            #expect(manifest.file(at: "fonts/fontawesome-webfont.svg")?.role == .font)
            #expect(manifest.file(at: "fonts/fontawesome-webfont.eot")?.essential == true)
        case .mathJax:
            #expect(first.excluded == ["test"])
            #expect(first.unreferenced.isEmpty, "\(first.unreferenced.prefix(5))")
        case .readTheDocsTheme:
            #expect(first.excluded.count == 6)
            #expect(manifest.file(at: "static/fonts/fontawesome-webfont.eot")?.role == .font)
        case .pythonDocs:
            // Thousands of links to docs.python.org and elsewhere: navigation, not loads.
            #expect(first.remoteReferences.isEmpty, "\(first.remoteReferences.prefix(5))")
        default:
            break
        }
    }
}

/// The digest a `larder-font://sha256/<hex>` URL names, exactly of that form.
enum FontURLText {
    struct NotAFontURL: Error {}

    static func digest(_ url: String) throws -> Digest {
        let prefix = "larder-font://sha256/"
        guard url.hasPrefix(prefix) else { throw NotAFontURL() }
        return try Digest(hex: url.dropFirst(prefix.count))
    }
}
