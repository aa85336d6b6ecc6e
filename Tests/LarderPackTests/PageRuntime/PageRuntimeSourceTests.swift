import Foundation
import LarderTestSupport
import Testing
@testable import LarderPack

/// The runtime the packer embeds is Runtime/larder.js as it stands, small, and its types
/// (Runtime/larder.d.ts) check a flow written in TypeScript with `tsc --strict` (Debian's
/// node-typescript, which Tools/setup.sh installs), and refuse one that misuses the API.
@Suite struct PageRuntimeSourceTests {
    @Test func theEmbeddedRuntimeIsTheOneInRuntime() throws {
        let script = try #require(FileManager.default.contents(atPath: repositoryPath("Runtime/larder.js")))
        let types = try #require(FileManager.default.contents(atPath: repositoryPath("Runtime/larder.d.ts")))
        #expect(Array(script) == PageRuntime.scriptBytes, "Runtime/larder.js changed: run Tools/embed-runtime.sh")
        #expect(Array(types) == PageRuntime.typesBytes, "Runtime/larder.d.ts changed: run Tools/embed-runtime.sh")
    }

    @Test func theRuntimeIsAtMostSixKilobytesGzipped() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("larder-runtime-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { removeFolder(folder) }
        try Data(PageRuntime.scriptBytes).write(to: URL(fileURLWithPath: folder + "/larder.js"))
        let gzipped = try run("/bin/gzip", ["-9", "-c", folder + "/larder.js"], in: folder)
        #expect(gzipped.status == 0)
        // Unminified: minifying only makes it smaller.
        #expect(gzipped.output.count <= 6 * 1024, "\(gzipped.output.count) bytes gzipped")
    }

    static let typedFlow = """
        import { larder, LarderError, VisibilityDetail } from "./larder";
        const stop: () => void = larder.on("visibility", (detail: VisibilityDetail) => { if (detail.visible) console.log(detail.session); });
        larder.on("context", (context) => console.log(context["plan"]));
        larder.on("reset", () => stop());
        async function flow(): Promise<void> {
          await larder.ready();
          const id: string = await larder.track("paywall:shown", { plan: "annual" });
          const answer: string = await larder.capture({ screen: "index.html", answer: id }, { event: "e1" });
          try { await larder.purchase("com.example.plus"); } catch (error) { if (error instanceof LarderError) console.log(error.message); }
          await Promise.all([larder.navigate("screen-2.html"), larder.complete(), larder.dismiss(), larder.restore(),
            larder.openLink("https://example.com/"), larder.custom("sign-in", { screen: answer }), larder.custom("ping")]);
          const visible: boolean = larder.visible;
          console.log(visible, larder.context["plan"]);
        }
        flow();
        """

    /// Each line misuses the API once.
    static let misusedFlow = """
        import { larder } from "./larder";
        larder.on("visibility", (detail) => detail.colour);
        larder.on("shown", () => {});
        const count: number = await larder.track("viewed");
        larder.purchase(42);
        larder.track("viewed", { step: 1 });
        """

    @Test func theTypesCheckAFlowAndRefuseMisuse() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("larder-tsc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { removeFolder(folder) }
        try Data(PageRuntime.typesBytes).write(to: URL(fileURLWithPath: folder + "/larder.d.ts"))
        try Data(Self.typedFlow.utf8).write(to: URL(fileURLWithPath: folder + "/flow.ts"))
        try Data(Self.misusedFlow.utf8).write(to: URL(fileURLWithPath: folder + "/misused.ts"))
        let options = ["--noEmit", "--strict", "--target", "es2022", "--module", "es2022", "--lib", "es2022,dom"]

        let good = try run("/usr/bin/tsc", options + ["flow.ts"], in: folder)
        #expect(good.status == 0, "\(String(decoding: good.output, as: UTF8.self))")

        let bad = try run("/usr/bin/tsc", options + ["misused.ts"], in: folder)
        let text = String(decoding: bad.output, as: UTF8.self)
        #expect(bad.status != 0)
        for line in 2...6 { #expect(text.contains("misused.ts(\(line),"), "line \(line) passed: \(text)") }
    }

    /// The members `larder.d.ts` declares for `Larder` are exactly those of the object
    /// `larder.js` exports (read by Node, with a stub document), and so are the exports.
    @Test func theTypesDeclareExactlyWhatTheScriptExports() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("larder-keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { removeFolder(folder) }
        try Data(PageRuntime.scriptBytes).write(to: URL(fileURLWithPath: folder + "/larder.mjs"))
        try Data("""
            globalThis.document = { visibilityState: "visible", addEventListener() {}, dispatchEvent() { return true; }, documentElement: { setAttribute() {} } };
            globalThis.addEventListener = () => {};
            globalThis.dispatchEvent = () => true;
            const module = await import("./larder.mjs");
            console.log(JSON.stringify({ larder: Object.getOwnPropertyNames(module.larder).sort(), exports: Object.keys(module).sort() }));
            """.utf8).write(to: URL(fileURLWithPath: folder + "/keys.mjs"))
        let node = try run("/usr/bin/node", ["keys.mjs"], in: folder)
        #expect(node.status == 0, "\(String(decoding: node.output, as: UTF8.self))")
        let read = try #require(try JSONSerialization.jsonObject(with: node.output) as? [String: [String]])

        let types = PageRuntime.types
        let body = try #require(types.range(of: "export interface Larder {")).upperBound
        let end = try #require(types[body...].range(of: "\n}")).lowerBound
        var declared: [String] = []
        for line in types[body..<end].split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.hasPrefix("/") && !text.hasPrefix("*") else { continue }
            let name = (text.hasPrefix("readonly ") ? text.dropFirst(9) : text[...]).prefix { $0.isLetter }
            if !name.isEmpty { declared.append(String(name)) }
        }
        #expect(declared.sorted() == read["larder"], "declared \(declared.sorted()), exported \(read["larder"] ?? [])")
        #expect(read["exports"] == ["LarderError", "default", "larder"])
        for export in ["export declare class LarderError", "export declare const larder", "export default larder"] {
            #expect(types.contains(export), "\(export)")
        }
    }

    private func run(_ tool: String, _ arguments: [String], in folder: String) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    private func removeFolder(_ folder: String) {
        do { try FileManager.default.removeItem(atPath: folder) } catch { print("could not remove \(folder): \(error)") }
    }
}
