#ifndef LARDER_CGIO_SHIM_H
#define LARDER_CGIO_SHIM_H

// GIO, for its network monitor (GNetworkMonitor): LarderHost's connectivity signal on Linux.
// A separate small library from WebKitGTK, which LarderHost never links.
#include <gio/gio.h>

// `g_signal_connect` is a macro over the variadic-free g_signal_connect_data, with the
// callback type-erased: one wrapper per signal, typed.
typedef void (*larder_network_changed_callback)(GNetworkMonitor *monitor, gboolean available, gpointer user_data);

static inline gulong larder_gio_connect_network_changed(GNetworkMonitor *monitor, larder_network_changed_callback callback, gpointer user_data) {
    return g_signal_connect_data(monitor, "network-changed", G_CALLBACK(callback), user_data, NULL, (GConnectFlags)0);
}

// `g_signal_emit_by_name` is variadic: the signal's one argument, typed (tests emit a change).
static inline void larder_gio_emit_network_changed(GNetworkMonitor *monitor, gboolean available) {
    g_signal_emit_by_name(monitor, "network-changed", available);
}

#endif
