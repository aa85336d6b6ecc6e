import Dispatch
import Foundation

extension Array where Element: Sendable {
    /// Maps the elements on all cores (`DispatchQueue.concurrentPerform`), keeping order.
    public func parallelMap<T: Sendable>(_ transform: @Sendable (Element) -> T) -> [T] {
        // Nothing to map: and `Array(unsafeUninitializedCapacity: 0)` would write its count
        // into the shared empty-array storage, which ThreadSanitizer reports between threads.
        guard !isEmpty else { return [] }
        let results = ResultSlots<T>(count: count)
        let input = self
        DispatchQueue.concurrentPerform(iterations: count) { index in
            results.set(index, transform(input[index]))
        }
        return results.take()
    }

    /// Maps the elements on `width` threads whatever the number of cores, keeping order: for
    /// work that mostly waits (uploads, each a request to a server). `transform` escapes: the
    /// threads may release it a moment after the last result is in.
    public func parallelMap<T: Sendable>(width: Int, _ transform: @escaping @Sendable (Element) -> T) -> [T] {
        guard !isEmpty else { return [] }
        let results = ResultSlots<T>(count: count)
        let input = self
        let next = Locked(0)
        let finished = DispatchGroup()
        for _ in 0..<Swift.min(Swift.max(width, 1), count) {
            finished.enter()
            Thread {
                defer { finished.leave() }
                while true {
                    let index = next.withLock { (next) -> Int in
                        defer { next += 1 }
                        return next
                    }
                    guard index < input.count else { return }
                    results.set(index, transform(input[index]))
                }
            }.start()
        }
        finished.wait()
        return results.take()
    }
}

/// Preallocated, uninitialized storage that concurrent iterations fill: each slot is
/// initialized by exactly one iteration, through its own address (no shared `Array` value is
/// mutated, so no copy-on-write check races), and read only after `concurrentPerform`
/// returned.
private final class ResultSlots<T>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<T>
    private var taken = false

    init(count: Int) { slots = .allocate(capacity: count) }

    deinit {
        if !taken { slots.deinitialize() }  // every slot was set: concurrentPerform ran them all
        slots.deallocate()
    }

    func set(_ index: Int, _ value: T) {
        (slots.baseAddress! + index).initialize(to: value)
    }

    /// Moves the values out, in order. Call once, after every slot was set.
    func take() -> [T] {
        taken = true
        return Array(unsafeUninitializedCapacity: slots.count) { buffer, initialized in
            _ = buffer.moveInitialize(fromContentsOf: slots)
            initialized = slots.count
        }
    }
}
