import Foundation
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// `larder journey prefetch` against nginx: three samples warmed in one run share the font
/// onboarding and paywall both use; progress bars appear on a terminal only.
@Suite struct PrefetchCLITests {
    static let key = "pk_live_warm"

    struct Published {
        var origin: Origin
        var work: Workspace
        var digests: [String: String]
    }

    /// The three samples published as journeys onboarding, paywall and legacy.
    func published() throws -> Published {
        let origin = try Origin()
        let work = try Workspace()
        var digests: [String: String] = [:]
        for (sample, journey) in [("onboarding", "onboarding"), ("paywall", "paywall"), ("legacy-prompt", "legacy")] {
            let report = try work.pack(sampleBundles + "/" + sample)
            try origin.publish([report.archivePath], journey: JourneyPublication(id: journey, key: Self.key))
            digests[journey] = report.bundleDigest.hex
        }
        try origin.reload()
        return Published(origin: origin, work: work, digests: digests)
    }

    func arguments(_ setup: Published) -> [String] {
        [
            "journey", "prefetch", "--origin", setup.origin.base.absoluteString, "--key", Self.key, "--journey", "onboarding",
            "--journey", "paywall", "--journey", "legacy", "--cache", setup.work.path + "/cache",
        ]
    }

    @Test func threeJourneysShareTheFontDownload() async throws {
        let setup = try published()
        try setup.origin.clearAccessLog()
        let run = try await LarderProcess.run(arguments(setup) + ["--json"], watchdog: .seconds(120))
        #expect(run.status == 0, "\(run)")
        #expect(!run.stderr.contains("\r"), "no progress bar without a terminal")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let journeys = try #require(report["journeys"] as? [[String: Any]])
        #expect(journeys.map { $0["journey"] as? String } == ["onboarding", "paywall", "legacy"])
        #expect(journeys.allSatisfy { $0["source"] as? String == "network" && $0["error"] is NSNull })

        // The Lato font both flows use travelled once: in onboarding's archive, or as an object.
        let show = try await LarderProcess.run(["cache", "show", "paywall", "--json", "--cache", setup.work.path + "/cache"])
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        let files = try #require((shown["manifest"] as? [String: Any])?["files"] as? [[String: Any]])
        let lato = try #require(files.first { $0["path"] as? String == "fonts/Lato-Regular.latin.woff2" }?["digest"] as? String).dropFirst(7)
        let carriers = ["/bundles/\(setup.digests["onboarding"]!).tar.gz", "/bundles/\(setup.digests["paywall"]!).tar.gz", "/objects/\(lato)"]
        let log = setup.origin.accessLog
        let fontTrips = log.filter { line in carriers.contains { line.contains(" \($0) ") || line.contains(" \($0).gz ") } }
        #expect(fontTrips.count == 1, "\(log.joined(separator: "\n"))")
        // Both journeys' scopes hold the shared bytes; ls names them.
        let ls = try await LarderProcess.run(["cache", "ls", "--json", "--cache", setup.work.path + "/cache"])
        let bundles = try #require(try JSONSerialization.jsonObject(with: Data(ls.stdout.utf8)) as? [[String: Any]])
        #expect(Set(bundles.compactMap { ($0["scopes"] as? [String])?.first }) == ["onboarding", "paywall", "legacy"])
    }

    @Test func progressBarsOnATerminalOnly() async throws {
        let setup = try published()
        let typescript = setup.work.path + "/typescript"
        let command = ([LarderProcess.executable] + arguments(setup)).map { "'\($0)'" }.joined(separator: " ")
        // script(1) runs the command on a pseudo-terminal and keeps what it printed.
        _ = try await offThePool { try Origin.shell(["script", "-qfec", command, typescript]) }
        let shown = try String(contentsOfFile: typescript, encoding: .utf8)
        #expect(shown.contains("\rwarming ["), "\(shown.prefix(2000))")
        let percents = shown.components(separatedBy: "\rwarming [").dropFirst().compactMap { part -> Int? in
            guard let close = part.firstIndex(of: "]") else { return nil }
            return Int(part[part.index(after: close)...].dropFirst().prefix { $0.isNumber })
        }
        #expect(percents.last == 100, "\(percents)")
        #expect(zip(percents, percents.dropFirst()).allSatisfy { $0 <= $1 }, "\(percents)")
        #expect(shown.contains("JOURNEY"))

        // --json on a terminal: no bar.
        let quiet = setup.work.path + "/typescript-json"
        let fetch = ([LarderProcess.executable] + arguments(setup) + ["--json"]).map { "'\($0)'" }.joined(separator: " ")
        _ = try await offThePool { try Origin.shell(["script", "-qfec", fetch, quiet]) }
        #expect(!(try String(contentsOfFile: quiet, encoding: .utf8)).contains("warming ["))
    }

    @Test func cacheFetchDrawsOnATerminalUnlessJSON() async throws {
        let setup = try published()
        let bundle = setup.digests["paywall"]!
        for json in [false, true] {
            let cache = setup.work.path + "/fetch-\(json)"
            let typescript = cache + ".typescript"
            let command = ([LarderProcess.executable, "cache", "fetch", bundle, "--origin", setup.origin.base.absoluteString, "--cache", cache]
                + (json ? ["--json"] : [])).map { "'\($0)'" }.joined(separator: " ")
            _ = try await offThePool { try Origin.shell(["script", "-qfec", command, typescript]) }
            let shown = try String(contentsOfFile: typescript, encoding: .utf8)
            #expect(shown.contains("\rfetching [") == !json, "\(shown.prefix(1000))")
        }
    }
}
