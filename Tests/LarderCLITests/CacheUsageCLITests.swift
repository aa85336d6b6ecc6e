import Dispatch
import Foundation
import LarderTestSupport
import Testing

/// `cache ls` and `cache show` give each bundle's unique and shared bytes: what evicting it
/// frees, and what stays for the bundles sharing it.
@Suite struct CacheUsageCLITests {
    func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// Runs the CLI on a Dispatch thread: waiting for the child never holds a thread of the
    /// cooperative pool, which the other suites of this process need.
    func larder(_ arguments: [String]) async throws -> CLIResult {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try CLI.run(arguments) }) }
        }
    }

    func listing(_ cache: String) async throws -> [String: [String: Any]] {
        let ls = try await larder(["cache", "ls", "--cache", cache, "--json"])
        #expect(ls.status == 0, "\(ls.stderr)")
        let bundles = try #require(try json(ls.stdout) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: bundles.map { ($0["name"] as! String, $0) })
    }

    @Test func uniqueBytesAreWhatEvictionFrees() async throws {
        let scratch = try Scratch()
        let cache = scratch.path + "/cache"
        let out = scratch.path + "/out"
        for name in ["onboarding", "paywall", "legacy-prompt"] {
            let archive = try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(with: Result { try packSample(name, into: out) }) }
            }
            #expect(try await larder(["cache", "install", archive, "--cache", cache]).status == 0)
        }
        let before = try await listing(cache)
        let paywall = try #require(before["paywall"])
        let onboarding = try #require(before["onboarding"])
        let unique = try #require(paywall["uniqueBytes"] as? Int)
        let shared = try #require(paywall["sharedBytes"] as? Int)
        #expect(shared > 0, "paywall shares its Lato font with onboarding")
        #expect(unique > 0)
        #expect((paywall["scopes"] as? [String]) == [])
        let stats = try #require(try json(try await larder(["cache", "stats", "--json", "--cache", cache]).stdout) as? [String: Any])
        let total = try #require(stats["bytesOnDisk"] as? Int)

        // Only paywall may go: what it frees is its unique bytes, and what it shared stays.
        #expect(try await larder(["cache", "pin", "onboarding", "--cache", cache]).status == 0)
        #expect(try await larder(["cache", "pin", "legacy-prompt", "--cache", cache]).status == 0)
        let evict = try await larder(["cache", "evict", "--to", "0", "--cache", cache, "--json"])
        let report = try #require(try json(evict.stdout) as? [String: Any])
        #expect((report["evicted"] as? [String])?.count == 1)
        #expect(report["bytesFreed"] as? Int == unique)
        #expect(report["bytesAfter"] as? Int == total - unique)
        // What onboarding shared with paywall alone is now onboarding's own.
        let after = try await listing(cache)
        let onboardingShared = try #require(onboarding["sharedBytes"] as? Int)
        let onboardingUnique = try #require(onboarding["uniqueBytes"] as? Int)
        #expect((after["onboarding"]?["uniqueBytes"] as? Int ?? 0) + (after["onboarding"]?["sharedBytes"] as? Int ?? 0)
            == onboardingUnique + onboardingShared)
        #expect((after["onboarding"]?["uniqueBytes"] as? Int ?? 0) > onboardingUnique)

        let text = try await larder(["cache", "show", "onboarding", "--cache", cache])
        #expect(text.stdout.contains("\nJourneys none (no scope holds it)\n"))
        #expect(text.stdout.contains(" only this bundle uses (evicting it frees them), "))
        let ls = try await larder(["cache", "ls", "--cache", cache])
        #expect(ls.stdout.hasPrefix("BUNDLE        NAME           SIZE"))
        #expect(ls.stdout.contains("UNIQUE: bytes only this bundle uses, what evicting it frees"))
    }

    @Test func statsSayTheHitCountersAreThisProcesss() async throws {
        let scratch = try Scratch()
        // An empty cache: a folder that is not there is an error (MissingCacheCLITests).
        try FileManager.default.createDirectory(atPath: scratch.path + "/cache", withIntermediateDirectories: false)
        let text = try await larder(["cache", "stats", "--cache", scratch.path + "/cache"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("count this process only"))
        let json = try #require(try json(try await larder(["cache", "stats", "--json", "--cache", scratch.path + "/cache"]).stdout) as? [String: Any])
        #expect(json["hitCounters"] as? String == "process")
    }
}
