#ifndef LARDER_CWEBKITGTK_SHIM_H
#define LARDER_CWEBKITGTK_SHIM_H
/*
 * WebKitGTK (webkit2gtk-4.1) for LarderWebKit. GObject's cast macros and the variadic
 * g_object_new and g_signal_connect cannot be called from Swift: each one Larder needs gets a
 * typed static inline wrapper here, so Swift never casts function pointers itself.
 */
#include <webkit2/webkit2.h>
#include <cairo.h>
#include <glib-unix.h>
#include <stdio.h>

/* Casts (the GObject macros check the type at run time). */
static inline GObject *larder_object(gpointer instance) { return G_OBJECT(instance); }
static inline GtkWidget *larder_widget(gpointer instance) { return GTK_WIDGET(instance); }
static inline GtkWindow *larder_window(gpointer instance) { return GTK_WINDOW(instance); }
static inline GtkContainer *larder_container(gpointer instance) { return GTK_CONTAINER(instance); }

/* LarderJourneyView's widgets: casts, type checks, their signals and the animation setting. */
static inline GtkStack *larder_stack(gpointer instance) { return GTK_STACK(instance); }
static inline GtkBox *larder_box(gpointer instance) { return GTK_BOX(instance); }
static inline GtkButton *larder_button(gpointer instance) { return GTK_BUTTON(instance); }
static inline GtkSpinner *larder_spinner(gpointer instance) { return GTK_SPINNER(instance); }
static inline GtkLabel *larder_label(gpointer instance) { return GTK_LABEL(instance); }
static inline gboolean larder_is_container(gpointer instance) { return GTK_IS_CONTAINER(instance); }
static inline gboolean larder_is_label(gpointer instance) { return GTK_IS_LABEL(instance); }
static inline gboolean larder_is_button(gpointer instance) { return GTK_IS_BUTTON(instance); }
static inline gboolean larder_is_spinner(gpointer instance) { return GTK_IS_SPINNER(instance); }
static inline gboolean larder_is_window(gpointer instance) { return GTK_IS_WINDOW(instance); }
static inline gboolean larder_is_web_view(gpointer instance) { return WEBKIT_IS_WEB_VIEW(instance); }

/* A widget signal whose handler takes only the widget ("map", "unmap", "destroy", "clicked"). */
typedef void (*larder_widget_cb)(GtkWidget *widget, gpointer data);
static inline gulong larder_connect_widget(GtkWidget *widget, const char *signal, larder_widget_cb callback, gpointer data,
                                           GClosureNotify release) {
    return g_signal_connect_data(widget, signal, G_CALLBACK(callback), data, release, 0);
}

/* "delete-event": the window manager (or the user) asks a window to close. */
typedef gboolean (*larder_delete_event_cb)(GtkWidget *widget, GdkEvent *event, gpointer data);
static inline gulong larder_connect_delete_event(GtkWidget *widget, larder_delete_event_cb callback, gpointer data,
                                                 GClosureNotify release) {
    return g_signal_connect_data(widget, "delete-event", G_CALLBACK(callback), data, release, 0);
}

/* GtkSettings' "gtk-enable-animations" (false: the user asked for reduced motion). */
static inline gboolean larder_animations_enabled(void) {
    gboolean enabled = TRUE;
    g_object_get(gtk_settings_get_default(), "gtk-enable-animations", &enabled, NULL);
    return enabled;
}
static inline void larder_set_animations_enabled(gboolean enabled) {
    g_object_set(gtk_settings_get_default(), "gtk-enable-animations", enabled, NULL);
}

/* g_object_new: a web view on a given context with a given user content manager. */
static inline WebKitWebView *larder_web_view_new(WebKitWebContext *context, WebKitUserContentManager *manager) {
    return WEBKIT_WEB_VIEW(g_object_new(WEBKIT_TYPE_WEB_VIEW, "web-context", context,
                                        "user-content-manager", manager, NULL));
}

/* g_object_new: an ephemeral web context (its own website data manager, so its own network
 * session and proxy settings) whose web processes get these memory pressure settings. */
static inline WebKitWebContext *larder_web_context_new(WebKitMemoryPressureSettings *settings) {
    WebKitWebsiteDataManager *manager = webkit_website_data_manager_new_ephemeral();
    WebKitWebContext *context = WEBKIT_WEB_CONTEXT(g_object_new(WEBKIT_TYPE_WEB_CONTEXT, "website-data-manager", manager,
                                                                "memory-pressure-settings", settings, NULL));
    g_object_unref(manager);
    return context;
}

/* Signal handlers, typed. Each connection takes a GClosureNotify that releases its data when
 * the handler is disconnected or the instance finalised. */
typedef void (*larder_load_changed_cb)(WebKitWebView *view, WebKitLoadEvent event, gpointer data);
static inline gulong larder_connect_load_changed(WebKitWebView *view, larder_load_changed_cb callback,
                                                 gpointer data, GClosureNotify release) {
    return g_signal_connect_data(view, "load-changed", G_CALLBACK(callback), data, release, 0);
}

typedef gboolean (*larder_load_failed_cb)(WebKitWebView *view, WebKitLoadEvent event, const gchar *uri,
                                          GError *error, gpointer data);
static inline gulong larder_connect_load_failed(WebKitWebView *view, larder_load_failed_cb callback,
                                                gpointer data, GClosureNotify release) {
    return g_signal_connect_data(view, "load-failed", G_CALLBACK(callback), data, release, 0);
}

typedef gboolean (*larder_decide_policy_cb)(WebKitWebView *view, WebKitPolicyDecision *decision,
                                            WebKitPolicyDecisionType type, gpointer data);
static inline gulong larder_connect_decide_policy(WebKitWebView *view, larder_decide_policy_cb callback,
                                                  gpointer data, GClosureNotify release) {
    return g_signal_connect_data(view, "decide-policy", G_CALLBACK(callback), data, release, 0);
}

typedef void (*larder_process_terminated_cb)(WebKitWebView *view, WebKitWebProcessTerminationReason reason,
                                             gpointer data);
static inline gulong larder_connect_web_process_terminated(WebKitWebView *view,
                                                           larder_process_terminated_cb callback,
                                                           gpointer data, GClosureNotify release) {
    return g_signal_connect_data(view, "web-process-terminated", G_CALLBACK(callback), data, release, 0);
}

typedef gboolean (*larder_script_dialog_cb)(WebKitWebView *view, WebKitScriptDialog *dialog, gpointer data);
static inline gulong larder_connect_script_dialog(WebKitWebView *view, larder_script_dialog_cb callback, gpointer data,
                                                  GClosureNotify release) {
    return g_signal_connect_data(view, "script-dialog", G_CALLBACK(callback), data, release, 0);
}

typedef gboolean (*larder_print_cb)(WebKitWebView *view, WebKitPrintOperation *operation, gpointer data);
static inline gulong larder_connect_print(WebKitWebView *view, larder_print_cb callback, gpointer data, GClosureNotify release) {
    return g_signal_connect_data(view, "print", G_CALLBACK(callback), data, release, 0);
}

typedef GtkWidget *(*larder_create_cb)(WebKitWebView *view, WebKitNavigationAction *action, gpointer data);
static inline gulong larder_connect_create(WebKitWebView *view, larder_create_cb callback, gpointer data, GClosureNotify release) {
    return g_signal_connect_data(view, "create", G_CALLBACK(callback), data, release, 0);
}

typedef void (*larder_download_started_cb)(WebKitWebContext *context, WebKitDownload *download, gpointer data);
static inline gulong larder_connect_download_started(WebKitWebContext *context, larder_download_started_cb callback,
                                                     gpointer data, GClosureNotify release) {
    return g_signal_connect_data(context, "download-started", G_CALLBACK(callback), data, release, 0);
}

/* "script-message-with-reply-received::<name>" */
typedef gboolean (*larder_script_message_cb)(WebKitUserContentManager *manager, JSCValue *value,
                                             WebKitScriptMessageReply *reply, gpointer data);
static inline gulong larder_connect_script_message(WebKitUserContentManager *manager, const char *name,
                                                   larder_script_message_cb callback, gpointer data,
                                                   GClosureNotify release) {
    char signal[160];
    snprintf(signal, sizeof signal, "script-message-with-reply-received::%s", name);
    return g_signal_connect_data(manager, signal, G_CALLBACK(callback), data, release, 0);
}

/* WebKitPolicyDecision subclasses. */
static inline WebKitNavigationPolicyDecision *larder_navigation_decision(WebKitPolicyDecision *decision) {
    return WEBKIT_NAVIGATION_POLICY_DECISION(decision);
}
static inline WebKitResponsePolicyDecision *larder_response_decision(WebKitPolicyDecision *decision) {
    return WEBKIT_RESPONSE_POLICY_DECISION(decision);
}

/* G_SOURCE_REMOVE / G_SOURCE_CONTINUE are macros. */
static inline gboolean larder_source_remove(void) { return G_SOURCE_REMOVE; }
#endif
