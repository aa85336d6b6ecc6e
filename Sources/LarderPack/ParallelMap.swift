import Dispatch

extension Array where Element: Sendable {
    /// Maps the elements on all cores (`DispatchQueue.concurrentPerform`), keeping order.
    func parallelMap<T: Sendable>(_ transform: @Sendable (Element) -> T) -> [T] {
        let results = ResultSlots<T>(count: count)
        let input = self
        DispatchQueue.concurrentPerform(iterations: count) { index in
            results.set(index, transform(input[index]))
        }
        return results.values
    }
}

/// Slots that concurrent iterations fill, each slot written by exactly one iteration and read
/// only after `concurrentPerform` has returned.
private final class ResultSlots<T>: @unchecked Sendable {
    private var slots: [T?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: T) {
        slots.withUnsafeMutableBufferPointer { $0[index] = value }
    }
    var values: [T] { slots.map { $0! } }
}
