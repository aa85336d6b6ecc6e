import Foundation
import LarderSystem
import LarderTestSupport
import Testing

/// `larder init`: a new flow packs without a warning, with the page runtime and `latin` font
/// subsets, and renders in the web engine with its font loaded; a folder in use is refused.
@Suite(.serialized) struct InitCLITests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func aNewFlowPacksWithoutAWarningAndRenders() throws {
        let scratch = try Scratch()
        let flow = scratch.path + "/my-flow"
        let created = try CLI.run(["init", flow])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("Next: larder preview"))
        // The sample's font, with its licence: the same bytes legacy-prompt carries.
        let font = try Data(contentsOf: URL(fileURLWithPath: flow + "/fonts/DejaVuSans.ttf"))
        #expect(font == (try Data(contentsOf: URL(fileURLWithPath: sampleBundles + "/legacy-prompt/fonts/DejaVuSans.ttf"))))
        #expect(FileManager.default.fileExists(atPath: flow + "/larder.d.ts"))

        let pack = try CLI.run(["pack", flow, "-o", scratch.path + "/out", "--json"])
        #expect(pack.status == 0, "\(pack.stderr)")
        let report = try json(pack.stdout)
        #expect((report["warnings"] as? [Any])?.isEmpty == true, "\(pack.stdout)")
        #expect(report["name"] as? String == "my-flow")
        let archive = try #require(report["archive"] as? String ?? report["archivePath"] as? String, "\(report.keys)")
        let listing = String(decoding: try CLI.shell("tar -tzf '\(archive)'"), as: UTF8.self)
        for path in ["larder.js", "index.html", "css/flow.css", "js/flow.js", "fonts/DejaVuSans.latin.woff2", "fonts/LICENSE-DejaVu.txt"] {
            #expect(listing.split(separator: "\n").contains(Substring(path)), "\(path) not in \(listing)")
        }
        #expect(!listing.contains("larder.d.ts") && !listing.contains(".ttf"))

        let png = scratch.path + "/flow.png"
        let render = try CLI.run(["render", archive, "--screenshot", png, "--json"], environment: ["DISPLAY": ""])
        #expect(render.status == 0, "\(render.stderr)")
        let rendered = try json(render.stdout)
        let fonts = try #require(rendered["fonts"] as? [[String: Any]])
        #expect(fonts.map { $0["family"] as? String } == ["Flow Sans"])
        #expect(fonts.allSatisfy { $0["status"] as? String == "loaded" })
        #expect(FileManager.default.fileExists(atPath: png))
    }

    @Test func aFolderInUseIsRefusedAndLeftAsItWas() throws {
        let scratch = try Scratch()
        try Data("mine".utf8).write(to: URL(fileURLWithPath: scratch.path + "/notes.txt"))
        let refused = try CLI.run(["init", scratch.path])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("exists and is not an empty folder"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["notes.txt"])

        let noFont = try CLI.run(["init", scratch.path + "/other", "--font", scratch.path + "/missing.ttf", "--licence", scratch.path + "/notes.txt"])
        #expect(noFont.status == 66)
        #expect(noFont.stderr.contains("missing.ttf: the font cannot be read"), "\(noFont.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["notes.txt"])

        let empty = scratch.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        #expect(try CLI.run(["init", empty]).status == 0)
        #expect(FileManager.default.fileExists(atPath: empty + "/larder.json"))
    }
}
