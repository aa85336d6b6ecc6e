import Foundation
import LarderFormat
import LarderTestSupport
import Testing

/// Packs web content as Debian ships it (Font Awesome 4.7, Bootstrap 4, jQuery UI's base theme,
/// MathJax 2.7, the Read-the-Docs theme, the Python 3.11 docs; `Tools/setup.sh` installs them):
/// no error, every font source and font preload rewritten, every font file's role `font`,
/// the same bytes twice, and a bundle that verifies. `larder pack` runs under `nice -n 19`:
/// a minute of packing on every core would otherwise slow the timed tests running meanwhile.
@Suite(.serialized) struct RealWorldPackTests {
    static let fontExtensions: Set<String> = ["woff2", "woff", "ttf", "otf", "eot"]

    /// A scratch folder in memory (`/dev/shm`) where there is one: the copies and archives
    /// (a few hundred MB) would otherwise fill the disk's write-back queue, and the other
    /// tests' `fsync`s wait behind them.
    final class Workspace: Sendable {
        let root: String = {
            var isFolder: ObjCBool = false
            let base = FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isFolder) && isFolder.boolValue
                ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
            return base.appendingPathComponent("larder-realworld-\(UUID().uuidString)").path
        }()
        deinit {
            do { try FileManager.default.removeItem(atPath: root) } catch { print("could not remove \(root): \(error)") }
        }
    }

    /// The keys of `larder pack --json` these tests read.
    struct Report: Sendable {
        var bundleDigest: String
        var archiveDigest: String
        var archivePath: String
        var rewrittenFontReferences: Int
        var excluded: [String]
        var unreferenced: [String]
        var remoteReferences: [String]
    }

    /// Runs `nice -n 19 larder pack <folder> -o <output> --json`.
    static func pack(_ folder: String, into output: String) throws -> Report {
        let out = try CaptureFile()
        let err = try CaptureFile()
        let status = try CLI.wait(
            CLI.spawn(["/usr/bin/nice", "-n", "19", CLI.executable, "pack", folder, "-o", output, "--json"], stdout: out.path, stderr: err.path))
        guard status == 0 else {
            throw CLIError("larder pack \(folder) exited with \(status): \(String(decoding: try err.contents(), as: UTF8.self).prefix(2000))")
        }
        guard let json = try JSONSerialization.jsonObject(with: try out.contents()) as? [String: Any],
            let bundleDigest = json["bundleDigest"] as? String, let archiveDigest = json["archiveDigest"] as? String,
            let archivePath = json["archivePath"] as? String, let rewritten = json["rewrittenFontReferences"] as? Int,
            let excluded = json["excluded"] as? [String], let unreferenced = json["unreferenced"] as? [String],
            let remote = json["remoteReferences"] as? [[String: Any]]
        else { throw CLIError("unexpected JSON from larder pack \(folder)") }
        return Report(
            bundleDigest: bundleDigest, archiveDigest: archiveDigest, archivePath: archivePath, rewrittenFontReferences: rewritten,
            excluded: excluded, unreferenced: unreferenced, remoteReferences: remote.compactMap { $0["url"] as? String })
    }

    /// What packing one source twice showed; gathered off the cooperative pool.
    struct Findings: Sendable {
        var first: Report
        var second: Report
        var sameBytes: Bool
        var problems: [FormatError]
        var manifest: Manifest?
        /// Files with a font's extension whose role is not `font`.
        var fontFilesWithOtherRoles: [String] = []
        /// Font sources and preloads still naming a path, or naming no font of the bundle.
        var unrewritten: [String] = []
        /// Other rewritable references that name a font file by path.
        var fontsByPath: [String] = []
        var fontSources = 0
    }

    static func findings(_ source: RealWorldSource, in scratch: Workspace) throws -> Findings {
        let folder = scratch.root + "/" + source.rawValue
        try source.prepare(at: folder)
        let first = try pack(folder, into: scratch.root + "/first")
        let second = try pack(folder, into: scratch.root + "/second")
        let verification = try BundleVerifier.verify(archiveAt: first.archivePath)
        var findings = Findings(
            first: first, second: second,
            sameBytes: FileManager.default.contentsEqual(atPath: first.archivePath, andPath: second.archivePath),
            problems: verification.problems, manifest: verification.manifest)
        guard let manifest = verification.manifest else { return findings }
        let byDigest = Dictionary(manifest.files.map { ($0.digest, $0) }, uniquingKeysWith: { first, _ in first })
        for file in manifest.files where Self.fontExtensions.contains(MediaType.fileExtension(of: file.path)) && file.role != .font {
            findings.fontFilesWithOtherRoles.append("\(file.path) is a \(file.role)")
        }
        let reader = try ArchiveReader(path: first.archivePath)
        _ = try BundleVerifier.readManifest(from: reader)
        while let entry = try reader.next() {
            guard let file = manifest.file(at: entry.path), file.role == .document || file.role == .style else { continue }
            let bytes = try reader.readAll(limit: Int(file.size))
            let references = bytes.withUnsafeBufferPointer { file.role == .document ? HTMLScanner.scan($0) : CSSScanner.scan($0) }
            for reference in references {
                if reference.kind == .fontSource || reference.kind == .fontPreload {
                    findings.fontSources += 1
                    let digest = FontURLText.digest(reference.url)
                    if digest.flatMap({ byDigest[$0] })?.role != .font { findings.unrewritten.append("\(file.path): \(reference.url)") }
                } else if reference.replaceRange != nil, case .local(let path) = ReferenceResolver.resolve(reference.url, from: file.path),
                    manifest.file(at: path)?.role == .font
                {
                    findings.fontsByPath.append("\(file.path): \(reference.url)")
                }
            }
        }
        return findings
    }

    /// The work runs on a thread of its own at the lowest priority (nice 19, like the `larder
    /// pack` it starts; on Linux `setpriority(PRIO_PROCESS, 0, …)` sets the calling thread's nice
    /// value, not the process's): it would otherwise hold one of the
    /// few threads of Swift's cooperative pool, and the cores, that the timed tests running
    /// meanwhile need.
    @Test(arguments: RealWorldSource.allCases)
    func packs(_ source: RealWorldSource) async throws {
        let scratch = Workspace()
        let findings = try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)  // lowering needs no rights; a failure only costs speed
                continuation.resume(with: Result { try Self.findings(source, in: scratch) })
            }
            thread.start()
        }
        let first = findings.first
        #expect(first.bundleDigest == findings.second.bundleDigest)
        #expect(first.archiveDigest == findings.second.archiveDigest)
        #expect(findings.sameBytes, "two packs of the same folder differ")
        #expect(findings.problems.isEmpty, "\(findings.problems)")
        let manifest = try #require(findings.manifest)
        #expect(findings.fontFilesWithOtherRoles.isEmpty, "\(findings.fontFilesWithOtherRoles)")
        #expect(findings.unrewritten.isEmpty, "font sources not rewritten: \(findings.unrewritten.prefix(10))")
        #expect(findings.fontsByPath.isEmpty, "fonts named by path: \(findings.fontsByPath.prefix(10))")
        // Every rewrite is a font source or preload found again in the packed files.
        #expect(findings.fontSources == first.rewrittenFontReferences)
        switch source {
        case .fontAwesome:
            // The @font-face rule of font-awesome.css and of .min.css, each one WOFF2 source now,
            // and the preload; the other formats are not packed (FontAwesome.otf, which no rule
            // names, is packed as an unreferenced file).
            #expect(first.rewrittenFontReferences == 3)
            #expect(manifest.file(at: "fonts/fontawesome-webfont.woff2")?.essential == true)
            for format in ["eot", "svg", "ttf", "woff"] { #expect(manifest.file(at: "fonts/fontawesome-webfont.\(format)") == nil) }
            #expect(first.unreferenced.contains("fonts/FontAwesome.otf"))
        case .mathJax:
            #expect(first.excluded == ["test"])
            #expect(first.unreferenced.isEmpty, "\(first.unreferenced.prefix(5))")
        case .readTheDocsTheme:
            #expect(first.excluded.count == 6)
            #expect(manifest.file(at: "static/fonts/fontawesome-webfont.eot") == nil)
            #expect(manifest.file(at: "static/fonts/fontawesome-webfont.woff2")?.role == .font)
        case .pythonDocs:
            // Thousands of links to docs.python.org and elsewhere: navigation, not loads.
            #expect(first.remoteReferences.isEmpty, "\(first.remoteReferences.prefix(5))")
        default:
            break
        }
    }
}

/// The digest a `larder-font://sha256/<hex>` URL names, exactly of that form; nil otherwise.
enum FontURLText {
    static func digest(_ url: String) -> Digest? {
        let prefix = "larder-font://sha256/"
        guard url.hasPrefix(prefix) else { return nil }
        do { return try Digest(hex: url.dropFirst(prefix.count)) } catch { return nil }
    }
}
