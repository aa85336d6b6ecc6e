import CWebKitGTK
import LarderWebKit

/// GTK signal connections with a Swift closure as handler.
///
/// Each connection's `user_data` is an `Unmanaged` box holding the closure; GTK releases it
/// through the connection's `GClosureNotify` when the handler is disconnected or the widget
/// finalised, so a handler never outlives its box and a box never outlives its connection.
/// Handlers run on the GLib main-loop thread, where GTK emits the signal, as code isolated to
/// `WebKitActor`; closures should hold their owner weakly.
@WebKitActor
enum Signal {
    /// Connects `handler` to a signal whose handler takes only the widget: `map`, `unmap`,
    /// `destroy`, a button's `clicked` (`larder_connect_widget`).
    /// - Returns: the handler id, for `g_signal_handler_disconnect`.
    @discardableResult
    static func connect(_ widget: UnsafeMutablePointer<GtkWidget>, _ signal: String, _ handler: @escaping @WebKitActor () -> Void) -> gulong {
        larder_connect_widget(
            widget, signal,
            { _, data in
                WebKitActor.assumeIsolated { Unmanaged<Handler>.fromOpaque(data!).takeUnretainedValue().run() }
            }, Handler.retained(handler), Handler.release)
    }

    /// Connects a window's `delete-event` (the window manager or the user asks it to close):
    /// `handler` runs and the event counts as handled, so the window stays; closing it is the
    /// handler's decision.
    @discardableResult
    static func connectDeleteEvent(_ window: UnsafeMutablePointer<GtkWidget>, _ handler: @escaping @WebKitActor () -> Void) -> gulong {
        larder_connect_delete_event(
            window,
            { _, _, data in
                WebKitActor.assumeIsolated { Unmanaged<Handler>.fromOpaque(data!).takeUnretainedValue().run() }
                return 1
            }, Handler.retained(handler), Handler.release)
    }
}

/// A connection's handler, owned by the connection (see ``Signal``).
@WebKitActor
private final class Handler {
    let run: @WebKitActor () -> Void

    private init(_ run: @escaping @WebKitActor () -> Void) { self.run = run }

    /// A retained box for `user_data`; ``release`` lets it go.
    static func retained(_ run: @escaping @WebKitActor () -> Void) -> gpointer { Unmanaged.passRetained(Handler(run)).toOpaque() }

    /// The connection's `GClosureNotify`: GTK calls it once, when the handler is disconnected.
    nonisolated static let release: GClosureNotify = { data, _ in Unmanaged<Handler>.fromOpaque(data!).release() }
}
