/// The global actor of everything that touches GTK or WebKit.
///
/// Its executor (`GLibExecutor`) runs jobs on the one thread that owns GLib's default main
/// context, which the first use starts (`MainLoopThread`). Code isolated to this actor never
/// blocks: it starts GTK/WebKit work and awaits its callbacks. Nothing on Swift's cooperative
/// pool ever waits for the main-loop thread other than by `await`.
@globalActor
public actor WebKitActor {
    /// The actor.
    public static let shared = WebKitActor()

    /// Runs on `GLibExecutor`.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        GLibExecutor.shared.asUnownedSerialExecutor()
    }

    /// Runs `operation` as isolated to this actor from code that GTK or WebKit called on the
    /// main-loop thread (a signal handler, a URI scheme request, an asynchronous result).
    ///
    /// Traps when called on any other thread.
    /// - Parameter operation: the isolated work.
    /// - Returns: what `operation` returns.
    package static func assumeIsolated<T>(_ operation: @WebKitActor () throws -> T) rethrows -> T {
        GLibExecutor.shared.checkIsolated()
        // The same conversion `MainActor.assumeIsolated` makes once isolation is checked.
        return try withoutActuallyEscaping(operation) { (isolated: @escaping @WebKitActor () throws -> T) in
            try unsafeBitCast(isolated, to: (() throws -> T).self)()
        }
    }
}
