import Foundation
import LarderTestSupport
import LarderFormat
import Testing
@testable import LarderPack

@Suite struct PackerTests {
    static let page = """
        <!doctype html>
        <link rel="stylesheet" href="css/app.css">
        <img src="img/logo.png">
        <a href="second.html">next</a>
        """

    @Test func rewritesFontPreloadsToTheFontsDigestLikeTheirFontFace() throws {
        let folder = try SourceFolder([
            "index.html": #"<link rel="preload" href="fonts/a.ttf" as="font" crossorigin><link rel=preload href=fonts/a.ttf as=font><link rel="stylesheet" href="app.css">"#,
            "app.css": "@font-face { font-family: A; src: url(fonts/a.ttf); }",
            "fonts/a.ttf": "FONTDATA",
        ])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(report.rewrittenFontReferences == 3)
        let url = "larder-font://sha256/" + SHA256Hasher.hash(Array("FONTDATA".utf8)).hex
        let reader = try ArchiveReader(path: report.archivePath)
        let html = try #require(try TestArchive.readAll(reader).first { $0.0 == "index.html" }).1
        #expect(String(decoding: html, as: UTF8.self)
            == #"<link rel="preload" href="\#(url)" as="font" crossorigin><link rel=preload href=\#(url) as=font><link rel="stylesheet" href="app.css">"#)
    }

    @Test func packsAndRewritesFontsAndFindsTheEssentialSet() throws {
        let folder = try SourceFolder([
            "index.html": Self.page,
            "second.html": "<img src=\"img/later.png\">",
            "css/app.css": "@font-face { font-family: A; src: url(../fonts/a.ttf) format('truetype'); }\nbody { background: url(\"data:image/png;base64,AA\") }",
            "fonts/a.ttf": "FONTDATA",
            "img/logo.png": "PNG1",
            "img/later.png": "PNG2",
            "notes.txt": "not referenced",
        ])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(report.fileCount == 7)
        #expect(report.unreferenced == ["notes.txt"])
        #expect(report.rewrittenFontReferences == 1)
        let verification = try BundleVerifier.verify(archiveAt: report.archivePath)
        #expect(verification.isIntact, "\(verification.problems)")
        let manifest = try #require(verification.manifest)
        #expect(manifest.files.filter(\.essential).map(\.path) == ["css/app.css", "fonts/a.ttf", "img/logo.png", "index.html"])
        #expect(report.archivePath.hasSuffix("/\(report.bundleDigest.hex).tar.gz"))

        let reader = try ArchiveReader(path: report.archivePath)
        var css = ""
        while let entry = try reader.next() {
            if entry.path == "css/app.css" {
                css = String(decoding: try reader.readAll(limit: 1 << 20), as: UTF8.self)
                break
            }
        }
        let fontDigest = SHA256Hasher.hash(Array("FONTDATA".utf8))
        #expect(css.hasPrefix("@font-face { font-family: A; src: url(\"larder-font://sha256/\(fontDigest.hex)\") format('truetype'); }"))
        #expect(css.contains("data:image/png;base64,AA"))
        #expect(manifest.file(at: "css/app.css")?.digest == SHA256Hasher.hash(Array(css.utf8)))
    }

    @Test func leavesJunkOut() throws {
        let folder = try SourceFolder(["index.html": "<p>hi</p>", ".DS_Store": "x", "Thumbs.db": "x", "__MACOSX/._index.html": "x",
            ".git/HEAD": "ref", "index.html.swp": "x", "notes~": "x", "._index.html": "x"])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(report.fileCount == 1)
        #expect(report.skipped == [".DS_Store", "._index.html", ".git", "Thumbs.db", "__MACOSX", "index.html.swp", "notes~"])
    }

    @Test func readsLarderJSON() throws {
        let folder = try SourceFolder([
            "start.html": "<p>x</p>",
            "larder.json": #"{"name": "prompt", "entry": "start.html", "renderer": {"protocol": 2, "capabilities": []}}"#,
        ])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        let manifest = try #require(try BundleVerifier.verify(archiveAt: report.archivePath).manifest)
        #expect(manifest.name == "prompt")
        #expect(manifest.entry == "start.html")
        #expect(manifest.renderer == Manifest.Renderer(protocolVersion: 2, capabilities: []))
        #expect(manifest.file(at: "larder.json") == nil)
    }

    @Test func samplesPackAndShareTheirFont() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("samples-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }  // scratch folder of this test
        var manifests: [String: Manifest] = [:]
        for name in ["onboarding", "paywall", "legacy-prompt"] {
            let report = try Packer.pack(source: sampleBundles + "/" + name, into: output)
            #expect(report.remoteReferences.isEmpty)
            let verification = try BundleVerifier.verify(archiveAt: report.archivePath)
            #expect(verification.isIntact)
            manifests[name] = verification.manifest
        }
        // Both split Lato into the same Latin subset (onboarding's arrows have their own), so
        // the two bundles share that object.
        let onboardingFont = manifests["onboarding"]?.file(at: "fonts/Lato-Regular.latin.woff2")?.digest
        #expect(onboardingFont != nil)
        #expect(onboardingFont == manifests["paywall"]?.file(at: "fonts/Lato-Regular.latin.woff2")?.digest)
        #expect(manifests["onboarding"]?.file(at: "fonts/Lato-Regular.u2190.woff2")?.essential == true)
        #expect(manifests.values.allSatisfy { $0.files.allSatisfy { !$0.path.hasSuffix(".ttf") } })
        #expect(manifests["onboarding"]!.files.filter { $0.role == .document }.count >= 3)
        #expect(manifests["legacy-prompt"]?.renderer.capabilities == [])
        // The paywall draws its plans by script and says when: the renderer waits for it.
        #expect(manifests["paywall"]?.renderer.capabilities == [.prepare, .visibility, .ready])
        #expect(manifests["onboarding"]?.renderer.capabilities == [.prepare, .visibility])
        // Each sample speaks through the page runtime the packer adds, the same bytes in each:
        // the archive holds it once per bundle and the cache once.
        let runtimes = Set(manifests.values.compactMap { $0.file(at: PageRuntime.path)?.digest })
        #expect(runtimes == [SHA256Hasher.hash(PageRuntime.scriptBytes)])
        #expect(manifests.values.allSatisfy { $0.file(at: PageRuntime.path)?.essential == true })
    }

    /// The same sources in two folders, written in another order with other mtimes and
    /// permissions (what umasks 022 and 077 give), give the same archive bytes.
    ///
    /// The modes are set file by file, never with `umask`: that is the whole process's, and
    /// tests running meanwhile (a publish into the origin's folder, which nginx's workers read as
    /// `nobody`) would make unreadable files.
    @Test func isDeterministicAcrossCopies() throws {
        let sample = sampleBundles + "/onboarding"
        let files = try FileManager.default.subpathsOfDirectory(atPath: sample).filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: sample + "/" + $0, isDirectory: &isFolder) && !isFolder.boolValue
        }
        let first = try SourceFolder()
        let second = try SourceFolder()
        for path in files.sorted() { try first.write(path, Array(try Data(contentsOf: URL(fileURLWithPath: sample + "/" + path)))) }
        for path in files.sorted().reversed() { try second.write(path, Array(try Data(contentsOf: URL(fileURLWithPath: sample + "/" + path)))) }
        try first.setModes(file: 0o644, folder: 0o755)
        try second.setModes(file: 0o600, folder: 0o700)
        for (index, path) in files.enumerated() {
            let date = Date(timeIntervalSince1970: TimeInterval(1_000_000 + index * 7919))
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: second.root + "/" + path)
        }
        let a = try Packer.pack(source: first.root, into: first.output)
        let b = try Packer.pack(source: second.root, into: second.output, options: PackOptions(level: 6))
        #expect(a.bundleDigest == b.bundleDigest)
        #expect(a.archiveDigest == b.archiveDigest)
        #expect(try Data(contentsOf: URL(fileURLWithPath: a.archivePath)) == Data(contentsOf: URL(fileURLWithPath: b.archivePath)))
    }
}

/// Every archive pack writes can be read: what the readers' limits refuse, pack refuses first,
/// with ``PackError/Code/limitExceeded`` and nothing written.
@Suite struct ReaderLimitPackTests {
    /// 10 MB of zeros compress about 1000:1; readers refuse past 200:1 as a gzip bomb, yet pack
    /// wrote such an archive and only `verify` (65) found out.
    @Test func anArchiveReadersTakeForAGzipBombIsNotWritten() throws {
        let folder = try SourceFolder(["index.html": "<p>", "a.txt": "text"])
        try folder.write("data/zeros.bin", [UInt8](repeating: 0, count: 10_000_000))
        let errors = folder.packFailure()
        #expect(errors.map(\.code) == [.limitExceeded])
        #expect(errors.first?.path == "data/zeros.bin", "\(errors)")
        #expect(errors.first?.message.contains("past the 200:1 ratio readers accept") == true, "\(errors)")
        #expect(folder.outputFiles.isEmpty)
    }

    /// Under the floor a reader never checks the ratio: 900 kB of zeros pack and verify.
    @Test func aSmallRepetitiveFilePacksAndVerifies() throws {
        let folder = try SourceFolder(["index.html": "<p>"])
        try folder.write("zeros.bin", [UInt8](repeating: 0, count: 900_000))
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(try BundleVerifier.verify(archiveAt: report.archivePath).isIntact)
    }

    /// With any limits, pack either refuses or writes an archive a reader with those limits
    /// reads through: never an archive the reader refuses.
    @Test(arguments: [
        ArchiveReader.Limits(maximumEntries: 5), ArchiveReader.Limits(maximumEntries: 6),
        ArchiveReader.Limits(maximumTotalBytes: 300_000), ArchiveReader.Limits(maximumRatio: 4, ratioFloor: 64 << 10),
        ArchiveReader.Limits(maximumRatio: 20, ratioFloor: 64 << 10),
    ])
    func packRefusesWhatTheReaderWould(_ limits: ArchiveReader.Limits) throws {
        let folder = try SourceFolder(["index.html": "<p>", "a/b/c.txt": "c"])
        let text = (0..<20_000).map { "line \($0 % 97) of a repetitive file\n" }.joined()
        try folder.write("a/log.txt", Array(text.utf8))
        var options = PackOptions()
        options.limits = limits
        let packed: PackReport
        do { packed = try Packer.pack(source: folder.root, into: folder.output, options: options) } catch {
            #expect(error.errors.map(\.code) == [.limitExceeded], "\(error)")
            #expect(folder.outputFiles.isEmpty)
            // And without them it packs, and that archive the limited reader refuses.
            let report = try Packer.pack(source: folder.root, into: folder.output)
            #expect(try !BundleVerifier.verify(archiveAt: report.archivePath, limits: limits).isIntact)
            return
        }
        let verified = try BundleVerifier.verify(archiveAt: packed.archivePath, limits: limits)
        #expect(verified.isIntact, "\(verified.problems)")
    }
}

/// The output folder is never packed: packing into a folder inside the source packed the
/// archives of the runs before (three runs, three digests).
@Suite struct OutputInsideSourceTests {
    @Test(arguments: ["out", "build/out", "./build/../out/"])
    func anOutputFolderInsideTheSourceIsLeftOut(_ output: String) throws {
        let folder = try SourceFolder(["index.html": "<p>", "build/keep.txt": "k"])
        var digests: Set<String> = []
        for run in 0..<3 {
            let report = try Packer.pack(source: folder.root, into: folder.root + "/" + output)
            digests.insert(report.bundleDigest.description)
            let clean = output.split(separator: "/").filter { $0 != "." }.reduce(into: [Substring]()) { parts, part in
                if part == ".." { parts.removeLast() } else { parts.append(part) }
            }.joined(separator: "/")
            #expect(report.skipped == (run == 0 ? [] : [clean]))  // the first run made it
            let manifest = try #require(try BundleVerifier.verify(archiveAt: report.archivePath).manifest)
            #expect(manifest.files.map(\.path) == ["build/keep.txt", "index.html"])
        }
        #expect(digests.count == 1)
    }

    @Test func theSourceFolderItselfIsNoOutputFolder() throws {
        let folder = try SourceFolder(["index.html": "<p>"])
        for output in [folder.root, folder.root + "/", folder.root + "/sub/.."] {
            do {
                _ = try Packer.pack(source: folder.root, into: output)
                Issue.record("packed into the source folder \(output)")
            } catch {
                #expect(error.errors.map(\.code) == [.outputFailed])
                #expect(error.errors.first?.message.contains("the output folder is the source folder") == true, "\(error)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.root) == ["index.html"])
    }

    @Test func whereAFolderIsInsideASource() throws {
        let folder = try SourceFolder(["index.html": "<p>", "a/b.txt": ""])
        let root = folder.root
        #expect(SourceTree.bundlePath(of: root + "/a", inside: root) == "a")
        #expect(SourceTree.bundlePath(of: root + "/a/new/deeper", inside: root) == "a/new/deeper")
        #expect(SourceTree.bundlePath(of: root + "/./a/../x", inside: root) == "x")
        #expect(SourceTree.bundlePath(of: root, inside: root + "/") == "")
        #expect(SourceTree.bundlePath(of: root + "/../out", inside: root) == nil)
        #expect(SourceTree.bundlePath(of: root + "/new/../../src/x", inside: root) == "x")
        #expect(SourceTree.bundlePath(of: root + "x", inside: root) == nil)
        #expect(SourceTree.bundlePath(of: root + "/index.html/sub", inside: root) == nil)  // a file's child: no folder
        let link = folder.output + "-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: root)
        defer { unlink(link) }
        #expect(SourceTree.bundlePath(of: link + "/out", inside: root) == "out")
    }
}
