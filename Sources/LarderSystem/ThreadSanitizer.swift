import CLarderSystem

/// Tells ThreadSanitizer about a hand-over it cannot see for itself: one made through a futex
/// (`Synchronization.Mutex`, see ``Locked``) or through a C library that is not built with TSan
/// (GLib's main loop). What a thread did before ``release(_:)`` happens, for TSan, before what
/// another thread does after ``acquire(_:)`` with the same key. Both do nothing unless the
/// package is built with `--sanitize=thread`.
package enum ThreadSanitizer {
    /// The calling thread takes over what was released under `key`.
    @inline(__always)
    package static func acquire(_ key: UnsafeMutableRawPointer) { larder_tsan_acquire(key) }

    /// The calling thread hands over what it did so far under `key`.
    @inline(__always)
    package static func release(_ key: UnsafeMutableRawPointer) { larder_tsan_release(key) }
}
