import CWebKitGTK
import Foundation
import LarderSystem
import Synchronization

/// The one thread that owns GLib's default main context and runs its loop for the life of the
/// process: it acquires the context, initialises GTK (`gtk_init_check`, X11 or Wayland only:
/// GTK's Broadway backend gives pages a negative viewport), then runs `g_main_loop_run`.
///
/// An application that already runs GTK's main loop on a thread of its own keeps it: the
/// context cannot be acquired here, this thread ends, and the jobs run on the application's
/// loop thread instead (``GLibExecutor`` only needs *a* thread that owns the context).
///
/// Every GTK and WebKit call happens on this thread, as a job of ``WebKitActor`` or inside a
/// callback GTK makes there. The loop never blocks on Swift work: a job that waits for WebKit
/// suspends, and GTK keeps running.
enum MainLoopThread {
    /// What GTK's initialisation gave.
    enum Display: Sendable, Equatable {
        /// Not known yet: the thread has not initialised GTK.
        case pending
        /// GTK opened this display.
        case opened(String)
        /// GTK could not open a display.
        case unavailable(String)
    }

    private static let display = Locked<Display>(.pending)
    private static let started = Atomic<Bool>(false)

    /// Starts the thread once; later calls do nothing.
    static func start() {
        guard started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        let thread = Thread { run() }
        thread.name = "larder-webkit-main-loop"
        thread.start()
    }

    /// The display GTK opened. Jobs of ``WebKitActor`` run only once the loop runs, so they
    /// never see ``Display/pending``.
    static var currentDisplay: Display { display.withLock { $0 } }

    private static func run() {
        let context = g_main_context_default()
        guard g_main_context_acquire(context) != 0 else {
            // An application thread already owns and runs the default context (it called
            // gtk_init and runs gtk_main): the jobs queued there run on that thread.
            display.withLock { $0 = .opened("the application's") }
            return
        }
        gdk_set_allowed_backends("x11,wayland")
        let name = ProcessInfo.processInfo.environment["DISPLAY"] ?? ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"]
        if gtk_init_check(nil, nil) != 0 {
            display.withLock { $0 = .opened(name ?? "default") }
        } else {
            let reason = name.map { "GTK cannot open the display '\($0)'" }
                ?? "no display: DISPLAY is not set (start Xvfb, or use VirtualDisplay.startIfNeeded())"
            display.withLock { $0 = .unavailable(reason) }
        }
        let loop = g_main_loop_new(context, 0)
        g_main_loop_run(loop)
    }
}
