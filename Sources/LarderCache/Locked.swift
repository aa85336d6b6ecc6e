import Synchronization

/// A value reachable only while holding its `Mutex`: for state that is not `Sendable` and
/// not thread-safe (SQLite connections).
///
/// `Sendable` whatever the value, as `Mutex` is, and checked by the compiler rather than
/// promised: the value goes in as `sending` and every result comes out as `sending`, so
/// nothing reachable from the value can escape the lock and be used unlocked.
package final class Locked<Value>: Sendable {
    private let mutex: Mutex<Value>

    package init(_ value: sending Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, holding the lock.
    package func with<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try mutex.withLock(body)
    }
}
