import CLarderSystem

/// Tells ThreadSanitizer about a hand-over it cannot see for itself: one made through a futex
/// (`Synchronization.Mutex`, see ``Locked``) or through a C library that is not built with TSan
/// (GLib's main loop). What a thread did before ``release(_:)`` happens, for TSan, before what
/// another thread does after ``acquire(_:)`` with the same key. Both are left out of every
/// build but the one `Tools/test-thread-sanitizer.sh` makes (`--sanitize=thread` with
/// `LARDER_THREAD_SANITIZER=1`, see Package.swift): two calls per lock cost a warm font-URL
/// lookup 50 ns, more than its locks.
public enum ThreadSanitizer {
    /// The calling thread takes over what was released under `key`.
    @inlinable
    public static func acquire(_ key: UnsafeMutableRawPointer) {
        #if LARDER_THREAD_SANITIZER
        larder_tsan_acquire(key)
        #endif
    }

    /// The calling thread hands over what it did so far under `key`.
    @inlinable
    public static func release(_ key: UnsafeMutableRawPointer) {
        #if LARDER_THREAD_SANITIZER
        larder_tsan_release(key)
        #endif
    }
}
