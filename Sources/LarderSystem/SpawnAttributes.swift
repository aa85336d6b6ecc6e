#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls `body` with `posix_spawn` attributes for a child that starts with no signal blocked
/// and `signals` back at their default action.
///
/// A child inherits the spawning thread's signal mask (Swift's and Dispatch's worker threads
/// block signals) and the signals its parent ignores (a parent that must survive a reader's
/// end ignores SIGPIPE): a child that must stop on SIGTERM, or die of a broken pipe, starts
/// from neither.
package func withCleanSpawnAttributes<T>(defaulting signals: [Int32], _ body: (UnsafePointer<posix_spawnattr_t>) throws -> T) rethrows -> T {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in signals { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return try body(&attributes)
}
