import Foundation
import LarderTestSupport
import Testing
@testable import LarderPack

/// Every kind of bad source gets its own error, and the output folder is left empty.
@Suite struct BadSourceTests {
    func expectFailure(_ folder: SourceFolder, strict: Bool = false, _ code: PackError.Code, location: String? = nil, path: String? = nil,
                       sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let errors = folder.packFailure(strict: strict)
        #expect(errors.map(\.code) == [code], "\(errors)", sourceLocation: sourceLocation)
        if let location { #expect(errors.first?.location?.description == location, "\(errors)", sourceLocation: sourceLocation) }
        if let path { #expect(errors.first?.path == path, "\(errors)", sourceLocation: sourceLocation) }
        #expect(folder.outputFiles.isEmpty, "output left behind: \(folder.outputFiles)", sourceLocation: sourceLocation)
    }

    @Test func missingReferenceInHTMLNamesLineAndColumn() throws {
        let folder = try SourceFolder(["index.html": "<!doctype html>\n<p>\n  <img alt=x src=\"img/nope.png\">\n"])
        expectFailure(folder, .missingReference, location: "index.html:3:19")
    }

    @Test func missingReferenceInCSS() throws {
        let folder = try SourceFolder([
            "index.html": "<link rel=stylesheet href=css/a.css>",
            "css/a.css": "body {\n  background: url('../img/gone.png');\n}",
        ])
        expectFailure(folder, .missingReference, location: "css/a.css:2:20")
    }

    @Test func everyMissingReferenceIsReportedAtOnce() throws {
        let folder = try SourceFolder(["index.html": "<img src=a.png><img src=b.png><script src=c.js></script>"])
        #expect(folder.packFailure().count == 3)
    }

    @Test func referenceClimbingOutOfTheBundle() throws {
        let folder = try SourceFolder(["index.html": "<img src=\"../../etc/passwd\">"])
        expectFailure(folder, .escapingReference, location: "index.html:1:11")
    }

    /// A path the renderers would refuse (they decode percent-escapes strictly) is refused here
    /// too, even when a file has the undecoded name, and so is a hand-written font URL that is
    /// not of the scheme's exact form.
    @Test(arguments: [
        ("<img src=\"100%.png\">", "index.html:1:11"),
        ("<p>\n  <img src=\"a%FF.png\">", "index.html:2:13"),
        ("<style>@font-face { font-family: x; src: url(larder-font://sha256/../x) }</style>", "index.html:1:46"),
    ])
    func malformedReferenceNamesLineAndColumn(_ html: String, _ location: String) throws {
        let folder = try SourceFolder(["index.html": html, "100%.png": "png", "a%FF.png": "png"])
        expectFailure(folder, .malformedReference, location: location)
    }

    @Test func remoteReferenceIsAnErrorOnlyWhenStrict() throws {
        let folder = try SourceFolder(["index.html": "<script src=\"https://cdn.example.com/x.js\"></script>"])
        expectFailure(folder, strict: true, .remoteReference, location: "index.html:1:14")
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(report.remoteReferences.map(\.url) == ["https://cdn.example.com/x.js"])
    }

    @Test func nonUTF8FileName() throws {
        let folder = try SourceFolder(["index.html": "<p>"])
        var bytes = Array((folder.root + "/bad").utf8CString.dropLast())
        bytes.append(CChar(bitPattern: 0xFF))
        bytes.append(0)
        let fd = open(bytes, O_CREAT | O_WRONLY, 0o644)
        #expect(fd >= 0)
        close(fd)
        expectFailure(folder, .invalidName, path: "bad\\xff")
    }

    @Test func overLongPath() throws {
        let folder = try SourceFolder(["index.html": "<p>"])
        let segment = String(repeating: "n", count: 200)
        try folder.write(Array(repeating: segment, count: 6).joined(separator: "/") + "/x.txt", [1])
        expectFailure(folder, .invalidName)
    }

    @Test func nonNFCName() throws {
        let folder = try SourceFolder(["index.html": "<p>"])
        // "e" followed by a combining acute accent: Normalization Form D.
        let fd = open(folder.root + "/cafe\u{301}.txt", O_CREAT | O_WRONLY, 0o644)
        #expect(fd >= 0)
        close(fd)
        expectFailure(folder, .invalidName)
        // What is wrong, then one instruction (the message used to say "rename it" twice).
        #expect(folder.packFailure().map(\.description) == [
            "cafe\u{301}.txt: unsafe bundle path: not in Unicode Normalization Form C (NFC): an accent is a separate combining character "
                + "instead of composed with its letter; rename it"
        ])
    }

    @Test func symbolicLink() throws {
        let folder = try SourceFolder(["index.html": "<p>"])
        try FileManager.default.createSymbolicLink(atPath: folder.root + "/link.html", withDestinationPath: "/etc/passwd")
        expectFailure(folder, .unreadableFile, path: "link.html")
    }

    @Test func specialFile() throws {
        let folder = try SourceFolder(["index.html": "<p>"])
        #expect(mkfifo(folder.root + "/pipe", 0o644) == 0)
        expectFailure(folder, .unreadableFile, path: "pipe")
    }

    @Test(arguments: [
        #"{"name": "x""#,
        #"["not", "an", "object"]"#,
        #"{"name": 5}"#,
        #"{"nmae": "typo"}"#,
        #"{"renderer": {"capabilities": ["teleport"]}}"#,
        #"{"renderer": {"protocol": 0}}"#,
        #"{"entry": "missing.html"}"#,
        #"{"entry": "style.css"}"#,
        #"{"exclude": "test/"}"#,
        #"{"exclude": [5]}"#,
        #"{"exclude": [""]}"#,
        #"{"exclude": ["a//b"]}"#,
        #"{"exclude": ["../x"]}"#,
        #"{"exclude": ["[abc"]}"#,
        #"{"exclude": ["index.html"]}"#,
        #"{"include": [{"essential": true}]}"#,
        #"{"include": [{"pattern": "a", "essential": "yes"}]}"#,
        #"{"include": [{"pattern": "a", "essentail": true}]}"#,
        #"{"include": [true]}"#,
    ])
    func badConfiguration(_ json: String) throws {
        let folder = try SourceFolder(["index.html": "<p>", "style.css": "", "larder.json": json])
        expectFailure(folder, .invalidConfiguration)
    }

    @Test func missingEntryDocumentWithoutConfiguration() throws {
        let folder = try SourceFolder(["main.html": "<p>"])
        expectFailure(folder, .invalidConfiguration)
    }

    @Test func missingSourceFolder() throws {
        let folder = try SourceFolder()
        do {
            _ = try Packer.pack(source: folder.root + "/nope", into: folder.output)
            Issue.record("packed a folder that does not exist")
        } catch {
            #expect(error.errors.map(\.code) == [.invalidSource])
        }
    }

    @Test func unwritableOutputLeavesNothing() throws {
        let folder = try SourceFolder(["index.html": "<p>"])
        try folder.write("blocker", [1])
        do {
            _ = try Packer.pack(source: folder.root, into: folder.root + "/blocker/out")
            Issue.record("wrote into a file")
        } catch {
            #expect(error.errors.map(\.code) == [.outputFailed])
        }
    }
}
