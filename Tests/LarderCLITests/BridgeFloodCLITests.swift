import Foundation
import LarderTestSupport
import Testing

/// Issue 20 end to end: a page that floods the bridge at load, presented by `larder journey
/// present --renderer webkit --json`, leaves the host's own timeline entries, and the report
/// counts what was refused instead of listing it.
@Suite(.serialized) struct BridgeFloodCLITests {
    @Test func aPageFloodingTheBridgeLeavesTheHostsTimelineAndIsCounted() throws {
        let scratch = try Scratch()
        let source = scratch.path + "/flood"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        let page = """
            <!doctype html><html><head><meta charset="utf-8"><title>flood</title></head><body><p>flood</p>
            <script>
            const bridge = window.webkit.messageHandlers.larder;
            for (let i = 0; i < 20000; i++) bridge.postMessage({type: "capture", event: "flood-" + i, body: "{}"}).catch(() => {});
            bridge.postMessage({type: "custom", name: "big", payload: "x".repeat(100000)}).catch(() => {});
            </script></body></html>
            """
        try Data(page.utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        let pack = try CLI.run(["pack", source, "-o", scratch.path + "/out", "--json"])
        #expect(pack.status == 0, "\(pack)")
        let archive = try #require(try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any])["archivePath"] as? String
        let result = try CLI.run([
            "journey", "present", "--offline", "--embedded", try #require(archive), "--renderer", "webkit", "--json",
            "--origin", "http://127.0.0.1:9/", "--key", "pk_flood", "--journey", "flood", "--cache", scratch.path + "/cache",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let timeline = try #require(report["timeline"] as? [[String: Any]]).compactMap { $0["kind"] as? String }
        for kind in ["embedded", "renderer-ready", "presented", "dismissed"] {
            #expect(timeline.contains(kind), "\(kind) was pushed out")
        }
        #expect(timeline.filter { $0 == "capture-dropped" }.count <= 100)
        let bridge = try #require(report["bridge"] as? [String: Any], "\(result.stdout.prefix(300))")
        // The page loaded twice: hidden, then again when the dismissal reset it.
        #expect(bridge["posted"] as? Int == 40_002, "\(bridge)")
        #expect(bridge["tooLarge"] as? Int == 2, "\(bridge)")
        #expect((bridge["overRate"] as? Int ?? 0) >= 39_000, "\(bridge)")
        // The hidden load's refusals in one entry (the reset's are counted when the host ends).
        let refused = try #require(report["timeline"] as? [[String: Any]]).filter { $0["kind"] as? String == "bridge-refused" }
        #expect(refused.count == 1)
        #expect((refused.first?["detail"] as? String)?.hasPrefix("while hidden: ") == true, "\(refused)")
    }
}
