import Foundation
import LarderSystem
import LarderTestSupport
import Testing
@testable import LarderHost

/// The connectivity signals' values (``LatestValue``): subscribers get the latest value, then
/// every later one, and a subscriber that stops listening while values arrive holds nobody up.
@Suite("A latest value and its subscribers")
struct LatestValueTests {
    @Test("A subscriber gets the latest value once known, then every later one, in order")
    func latestThenLater() async {
        let value = LatestValue<Int>(bufferingNewest: 16)
        #expect(value.current == nil)
        var early = value.subscribe().makeAsyncIterator()
        value.publish(1)
        value.publish(1, onlyChanges: true)
        value.publish(2)
        var late = value.subscribe().makeAsyncIterator()
        value.publish(3)
        #expect(await [early.next(), early.next(), early.next()] == [1, 2, 3])
        #expect(await [late.next(), late.next()] == [2, 3], "the latest value first, then the next")
        #expect(value.current == 3)
    }

    /// GIO's thread publishes whenever the routes change; a host stops listening when it is
    /// disposed. Handing a value over under the lock the stream's cancellation takes left both
    /// threads waiting on each other (seen once in about 1,000 power-loss checks).
    @Test("Values published while subscribers stop listening reach the others, and nobody waits for ever")
    func publishingWhileSubscribersCancel() async {
        let value = LatestValue<Int>(bufferingNewest: 16)
        let stop = Locked(false)
        let published = Locked(0)
        Thread.detachNewThread {
            var next = 0
            while !stop.withLock({ $0 }) {
                value.publish(next)
                next += 1
                published.withLock { $0 = next }
            }
        }
        let listener = value.subscribe()
        let heard = Task { () -> Int in
            var count = 0
            for await _ in listener {
                count += 1
                if count == 100 { break }
            }
            return count
        }
        let finished = await finishes(within: .seconds(60)) {
            for _ in 0..<3_000 {
                let stream = value.subscribe()
                let consumer = Task { for await _ in stream {} }
                await Task.yield()
                consumer.cancel()
                await consumer.value
            }
        }
        stop.withLock { $0 = true }
        guard finished else {
            // The deadlocked threads cannot be freed: the test fails and leaves them.
            Issue.record("a cancelled subscriber and the publisher waited on each other (\(published.withLock { $0 }) values published)")
            return
        }
        #expect(await heard.value == 100, "a subscriber that keeps listening hears the values")
    }
}
