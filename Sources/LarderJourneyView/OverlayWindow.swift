import CWebKitGTK
import LarderHost
import LarderWebKit

/// The window a ``JourneyView`` is presented in over the app (the overlay): a toplevel
/// transient for the app's window, modal, kept above it (over its bars and dialogs), centred on
/// it and as large as the flow's viewport. The one owner of the window: the view's widget is
/// lent to it and taken back, never destroyed with it.
@WebKitActor
final class OverlayWindow {
    let window: UnsafeMutablePointer<GtkWidget>
    private let content: UnsafeMutablePointer<GtkWidget>
    private var closed = false

    /// Makes the window around `content`, unmapped.
    /// - Parameters:
    ///   - parent: the app's window (`GtkWindow *`), nil for a window of its own (the CLI).
    ///   - viewport: its size.
    ///   - title: its title, which assistive technologies read as its name.
    ///   - close: runs when the user or the window manager asks it to close.
    init(
        parent: UnsafeMutableRawPointer?, viewport: Viewport, title: String, content: UnsafeMutablePointer<GtkWidget>,
        close: @escaping @WebKitActor () -> Void
    ) {
        self.content = content
        window = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
        let gtkWindow = larder_window(window)
        gtk_window_set_title(gtkWindow, title)
        // Resizable, so the default size holds (a fixed-size window takes its content's natural
        // size, and a web view asks for its page's whole height); the hints keep it at the
        // viewport's size under a window manager.
        gtk_window_set_default_size(gtkWindow, gint(viewport.width), gint(viewport.height))
        var size = GdkGeometry()
        size.min_width = gint(viewport.width)
        size.max_width = gint(viewport.width)
        size.min_height = gint(viewport.height)
        size.max_height = gint(viewport.height)
        gtk_window_set_geometry_hints(gtkWindow, nil, &size, GdkWindowHints(GDK_HINT_MIN_SIZE.rawValue | GDK_HINT_MAX_SIZE.rawValue))
        gtk_window_set_modal(gtkWindow, 1)
        gtk_window_set_keep_above(gtkWindow, 1)
        gtk_window_set_type_hint(gtkWindow, GDK_WINDOW_TYPE_HINT_DIALOG)
        gtk_window_set_skip_taskbar_hint(gtkWindow, 1)
        if let parent {
            gtk_window_set_transient_for(gtkWindow, larder_window(parent))
            gtk_window_set_destroy_with_parent(gtkWindow, 1)
            gtk_window_set_position(gtkWindow, GTK_WIN_POS_CENTER_ON_PARENT)
        } else {
            gtk_window_set_position(gtkWindow, GTK_WIN_POS_CENTER)
        }
        gtk_container_add(larder_container(window), content)
        Signal.connectDeleteEvent(window, close)
        // Destroyed with its parent: the view's widget leaves first, so it is not destroyed too.
        Signal.connect(window, "destroy") { [content, window] in
            if gtk_widget_get_parent(content) == window { gtk_container_remove(larder_container(window), content) }
        }
    }

    isolated deinit { close() }

    /// Maps the window (the view's widget appears, and the view presents).
    func show() {
        guard !closed else { return }
        gtk_widget_show(window)
    }

    /// Unmaps the window (the view's widget leaves, and the view dismisses), takes the view's
    /// widget back and destroys the window.
    func close() {
        guard !closed else { return }
        closed = true
        gtk_widget_hide(window)
        if gtk_widget_get_parent(content) == window { gtk_container_remove(larder_container(window), content) }
        gtk_widget_destroy(window)
    }
}

/// One overlay at a time per ``PresentationCoordinator`` (presenting a new one dismisses
/// the current one): an overlay that goes up closes the one of its group that is
/// loading or failed; one that shows a flow is replaced by the host when the new flow shows
/// (its outcome: replaced), and closes then.
@WebKitActor
enum OverlayGroup {
    private static var current: [ObjectIdentifier: WeakView] = [:]

    /// Makes `view` the overlay of `coordinator`'s group; the one before it closes unless it
    /// shows a flow.
    static func takeOver(_ coordinator: PresentationCoordinator, by view: JourneyView) {
        let key = ObjectIdentifier(coordinator)
        let previous = current[key]?.view
        current[key] = WeakView(view)
        guard let previous, previous !== view, previous.phase != .showing else { return }
        previous.dismiss()
    }

    /// `view`'s overlay closed.
    static func leave(_ coordinator: PresentationCoordinator, by view: JourneyView) {
        let key = ObjectIdentifier(coordinator)
        if current[key]?.view === view { current[key] = nil }
    }
}

@WebKitActor
private final class WeakView {
    weak var view: JourneyView?
    init(_ view: JourneyView) { self.view = view }
}
