import LarderTestSupport
import Testing

/// The watchdog the host's non-blocking tests rely on: a call that never returns is called hung,
/// never before its limit, and a quick one gives its value. (How long after the limit depends on
/// how long the suite's other tests hold the task threads: 47.7 s for this 1 s limit in one run
/// of the test command, so no upper bound is asserted.)
@Suite struct AsyncWatchdogTests {
    @Test func aCallThatNeverReturnsIsCalledHungAndAQuickOneAnswers() async {
        let clock = ContinuousClock()
        let start = clock.now
        // Left behind asleep, as a hung call is: the process ends it.
        let hung = await value(within: .seconds(1)) { () async -> Int in
            do { try await Task.sleep(for: .seconds(3_600)) } catch { return 0 }
            return 1
        }
        let waited = clock.now - start
        #expect(hung == nil)
        #expect(waited >= .seconds(1), "\(waited)")
        #expect(await value(within: .seconds(10)) { 7 } == 7)
    }
}
