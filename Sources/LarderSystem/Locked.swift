import Synchronization

/// A value reachable only while holding its lock: the one lock type of the package, for state
/// shared between threads (queues, tables, SQLite connections).
///
/// It is `Synchronization.Mutex` plus what ThreadSanitizer needs to see it. `Mutex` waits in
/// futex calls that TSan cannot observe, so TSan takes every access to a `Mutex`'s value from two
/// threads for a race. `Locked` tells TSan when its lock is taken and let go (see
/// ``ThreadSanitizer``: only in the build made for it), so under TSan an access made without the
/// lock is still reported, and one made with it is not. Use it rather than `Mutex` directly.
///
/// `Sendable` whatever the value, as `Mutex` is, and checked by the compiler rather than
/// promised: the value goes in as `sending` and every result comes out as `sending`, so
/// nothing reachable from the value can escape the lock and be used unlocked.
public final class Locked<Value>: Sendable {
    @usableFromInline let mutex: Mutex<Value>

    public init(_ value: sending Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, holding the lock. Always inlined, as `Mutex.withLock` is: a
    /// generic call across modules costs more than the lock (a warm cache read took 290 ns
    /// instead of 160).
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        let key = Unmanaged.passUnretained(self).toOpaque()
        return try mutex.withLock { (value) throws(Failure) -> sending Result in
            ThreadSanitizer.acquire(key)
            defer { ThreadSanitizer.release(key) }
            return try body(&value)
        }
    }
}
