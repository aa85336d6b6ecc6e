import CWebKitGTK
import LarderWebKit

/// The view's own loading and error states, used unless the app passes its own.
@WebKitActor
package enum BuiltInStates {
    /// The loading indicator's accessible name: it has no text on screen.
    package static let loadingName = "Loading"
    /// The loading indicator's accessible description.
    package static let loadingDescription = "The journey is being prepared; it appears when it is ready."
    /// The error state's title and message: the same whatever went wrong. The error itself goes
    /// to the app (``JourneyView/onError``, ``JourneyView/errors``), never onto the screen: it
    /// may name URLs, files and engine details.
    package static let errorTitle = "Something went wrong"
    package static let errorMessage = "This can't be shown right now. Try again in a moment."
    /// The error state's buttons.
    package static let retryLabel = "Try again"
    package static let closeLabel = "Close"

    /// A centred progress indicator without text (a `GtkSpinner`), announced to assistive
    /// technologies as a progress bar named ``loadingName`` and described by
    /// ``loadingDescription``. GTK runs its animation only while GTK's `gtk-enable-animations`
    /// is on: with it off (the user asked for reduced motion) the indicator stands still.
    static func loading() -> UnsafeMutablePointer<GtkWidget> {
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        let spinner = gtk_spinner_new()!
        gtk_widget_set_size_request(spinner, 32, 32)
        gtk_widget_set_halign(spinner, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(spinner, GTK_ALIGN_CENTER)
        gtk_spinner_start(larder_spinner(spinner))
        let accessible = gtk_widget_get_accessible(spinner)
        atk_object_set_role(accessible, ATK_ROLE_PROGRESS_BAR)
        atk_object_set_name(accessible, loadingName)
        atk_object_set_description(accessible, loadingDescription)
        gtk_box_pack_start(larder_box(box), spinner, 1, 1, 0)
        gtk_widget_show_all(box)
        return box
    }

    /// The error state: ``errorTitle``, ``errorMessage``, a ``retryLabel`` button that runs
    /// `retry`, and with `close` a ``closeLabel`` button that runs it (an overlay's way out).
    static func error(retry: @escaping @WebKitActor () -> Void, close: (@WebKitActor () -> Void)?) -> UnsafeMutablePointer<GtkWidget> {
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
        gtk_widget_set_halign(box, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(box, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_start(box, 24)
        gtk_widget_set_margin_end(box, 24)
        let title = gtk_label_new(nil)!
        gtk_label_set_markup(larder_label(title), "<span size='large' weight='bold'>\(errorTitle)</span>")
        let message = gtk_label_new(errorMessage)!
        gtk_label_set_line_wrap(larder_label(message), 1)
        gtk_label_set_justify(larder_label(message), GTK_JUSTIFY_CENTER)
        gtk_label_set_max_width_chars(larder_label(message), 40)
        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        gtk_widget_set_halign(buttons, GTK_ALIGN_CENTER)
        if let close {
            let button = gtk_button_new_with_label(closeLabel)!
            Signal.connect(button, "clicked", close)
            gtk_box_pack_start(larder_box(buttons), button, 0, 0, 0)
        }
        let again = gtk_button_new_with_label(retryLabel)!
        gtk_style_context_add_class(gtk_widget_get_style_context(again), "suggested-action")
        Signal.connect(again, "clicked", retry)
        gtk_box_pack_start(larder_box(buttons), again, 0, 0, 0)
        for child in [title, message, buttons] { gtk_box_pack_start(larder_box(box), child, 0, 0, 0) }
        gtk_widget_show_all(box)
        return box
    }
}
