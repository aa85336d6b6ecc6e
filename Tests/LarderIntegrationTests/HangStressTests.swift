import Foundation
import LarderCache
import LarderFetch
import LarderFormat
import LarderTestSupport
import LarderTransport
import Synchronization
import Testing

/// The hang cases over and over, with time limits and cancellations landing at random moments
/// (where URLSession on Linux deadlocked: issue 5412): each must end, or the watchdog
/// (``finishes(within:_:)``, its limit plus 10 s) fails the test instead of letting it hang. The
/// subprocess tests check the limit + 2 s bound itself.
@Suite struct HangStressTests {
    enum Hang: String, CaseIterable, Sendable {
        case acceptAndNeverRead, readAndNeverAnswer, headersThenStall, drip

        var answer: FaultOrigin.Answer {
            switch self {
            case .acceptAndNeverRead: .acceptAndNeverRead
            case .readAndNeverAnswer: .readAndNeverAnswer
            case .headersThenStall: .headersThenStall(status: 200, headers: [], contentLength: 100_000)
            case .drip: .drip(status: 200, headers: [], body: Array(repeating: 7, count: 100_000), bytesPerSecond: 50)
            }
        }
    }

    @Test(arguments: Hang.allCases)
    func aHundredRequestsEndInTimeWhateverCancelsThem(_ hang: Hang) async throws {
        let origin = try FaultOrigin { _ in hang.answer }
        let transport = CurlTransport.shared
        var hung = 0
        for batch in 0..<5 {
            hung += await withTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    let round = batch * 20 + index
                    group.addTask {
                        var generator = SystemRandomNumberGenerator()
                        let timeout = Duration.milliseconds(Int.random(in: 20...400, using: &generator))
                        let cancelAfter = Duration.milliseconds(Int.random(in: 0...300, using: &generator))
                        let request = HTTPRequest(url: origin.base.appendingPathComponent("r\(round)"), timeout: timeout)
                        let ended = await finishes(within: timeout + .seconds(10)) {
                            let task = Task { try await transport.send(request) }
                            if round % 2 == 0 {
                                try? await Task.sleep(for: cancelAfter)  // an interrupted pause only cancels sooner
                                task.cancel()
                            }
                            _ = await task.result
                        }
                        return ended
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
            }
        }
        #expect(hung == 0, "\(hung) of 100 requests hung")
        try await offThePool { origin.stop() }
    }

    @Test(arguments: Hang.allCases)
    func fetchesEndInTimeWhenCancelledOrOutOfTime(_ hang: Hang) async throws {
        let work = try Workspace()
        let origin = try FaultOrigin { _ in hang.answer }
        let cache = try work.cache()
        let hung = await withTaskGroup(of: Bool.self) { group in
            for round in 0..<100 {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    var configuration = BundleFetcher.Configuration()
                    configuration.deadline = .milliseconds(Int.random(in: 50...600, using: &generator))
                    configuration.requestTimeout = .milliseconds(Int.random(in: 20...400, using: &generator))
                    let fetcher = BundleFetcher(cache: cache, origin: origin.base, configuration: configuration)
                    let bundle = SHA256Hasher.hash(Array("never served \(round)".utf8))
                    let ended = await finishes(within: configuration.deadline + .seconds(10)) {
                        let task = Task { try await fetcher.fetch(bundle) }
                        if round % 3 == 0 {
                            try? await Task.sleep(for: .milliseconds(Int.random(in: 0...200)))  // an interrupted pause only cancels sooner
                            await fetcher.cancelAll()
                        }
                        _ = await task.result
                    }
                    return ended
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
        #expect(hung == 0, "\(hung) of 100 fetches hung")
        #expect(try cache.bundles().isEmpty)
        try await offThePool { origin.stop() }
    }
}
