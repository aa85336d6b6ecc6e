import CWebKitGTK
import LarderWebKit

/// The widgets of a ``JourneyView``: a `GtkStack` (no transition) with one page per
/// ``JourneyViewStage/Page``: the loading state, a holder for the error state (made afresh for
/// each failure), the content (where the renderer's web view is placed while shown) and an
/// empty page. The one owner of those widgets: it holds a reference to the stack for its own
/// life, whatever container the app puts it in.
@WebKitActor
final class ViewPages {
    /// The view's root widget.
    let stack: UnsafeMutablePointer<GtkWidget>
    /// Where the renderer's web view goes.
    let content: UnsafeMutablePointer<GtkWidget>
    private let errorHolder: UnsafeMutablePointer<GtkWidget>
    /// The page on show.
    private(set) var shown: JourneyViewStage.Page = .empty

    /// - Parameter loading: the loading state's widget (the built-in one or the app's).
    init(loading: UnsafeMutablePointer<GtkWidget>) {
        stack = gtk_stack_new()!
        g_object_ref_sink(stack)
        gtk_stack_set_transition_type(larder_stack(stack), GTK_STACK_TRANSITION_TYPE_NONE)
        content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        errorHolder = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        let empty = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        for (child, page) in [(empty, JourneyViewStage.Page.empty), (loading, .loading), (errorHolder, .error), (content, .content)] {
            gtk_widget_show(child)
            gtk_stack_add_named(larder_stack(stack), child, page.rawValue)
        }
        gtk_stack_set_visible_child_name(larder_stack(stack), JourneyViewStage.Page.empty.rawValue)
        gtk_widget_show(stack)
    }

    isolated deinit {
        g_object_unref(stack)
    }

    /// Shows `page`.
    func show(_ page: JourneyViewStage.Page) {
        guard page != shown else { return }
        shown = page
        gtk_stack_set_visible_child_name(larder_stack(stack), page.rawValue)
    }

    /// Puts `widget` in the error page, in place of the one there.
    func setError(_ widget: UnsafeMutablePointer<GtkWidget>) {
        removeChildren(of: errorHolder)
        gtk_box_pack_start(larder_box(errorHolder), widget, 1, 1, 0)
        gtk_widget_show(widget)
    }

    /// Puts the renderer's web view in the content page.
    func place(_ webView: UnsafeMutablePointer<GtkWidget>) {
        gtk_box_pack_start(larder_box(content), webView, 1, 1, 0)
    }

    /// Takes the renderer's web view out of the content page.
    func withdraw(_ webView: UnsafeMutablePointer<GtkWidget>) {
        if gtk_widget_get_parent(webView) == content { gtk_container_remove(larder_container(content), webView) }
    }

    private func removeChildren(of container: UnsafeMutablePointer<GtkWidget>) {
        guard let children = gtk_container_get_children(larder_container(container)) else { return }
        defer { g_list_free(children) }
        var node: UnsafeMutablePointer<GList>? = children
        while let current = node {
            if let child = current.pointee.data { gtk_container_remove(larder_container(container), larder_widget(child)) }
            node = current.pointee.next
        }
    }
}

/// The place a ``JourneyView`` lends its renderer (``WebViewPlacement``): the content page of
/// its widgets. It tells the view when the web view comes and goes, and declines it once the
/// view is gone (the web view then stays hidden in the renderer's own window).
@WebKitActor
final class ContentSlot: WebViewPlacement {
    weak var view: JourneyView?

    init(_ view: JourneyView) { self.view = view }

    func place(_ widget: UnsafeMutablePointer<GtkWidget>) -> Bool {
        guard let view, !view.isDestroyed else { return false }
        view.pages.place(widget)
        view.handle { $0.placed() }
        return true
    }

    func withdraw(_ widget: UnsafeMutablePointer<GtkWidget>) {
        guard let view else {
            // The view went; its widgets may live on in the app's container.
            if let parent = gtk_widget_get_parent(widget) { gtk_container_remove(larder_container(parent), widget) }
            return
        }
        view.pages.withdraw(widget)
        view.handle { $0.withdrawn() }
    }
}
