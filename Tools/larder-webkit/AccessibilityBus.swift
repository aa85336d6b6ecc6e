import Foundation

/// Keeps the web engine from warning "Can't connect to a11y bus" on every run where there is
/// no accessibility bus to connect to (a terminal without a desktop session, CI, Xvfb).
///
/// WebKitGTK's web process connects to the accessibility (AT-SPI) bus whose address the UI
/// process finds; where there is none it prints that GLib warning to stderr, which the user of
/// `larder render` and `larder journey --renderer webkit` can do nothing about. Where no session
/// bus is reachable (no `DBUS_SESSION_BUS_ADDRESS`, no `$XDG_RUNTIME_DIR/bus`) and no
/// accessibility bus is named (`AT_SPI_BUS_ADDRESS`), no assistive technology can reach the
/// engine anyway: the engine is told there is no bus (`WEBKIT_A11Y_BUS_ADDRESS` empty, and
/// `NO_AT_BRIDGE=1` for GTK's own bridge). With a session bus (a desktop, `dbus-run-session`
/// as the AT-SPI tests use) nothing is changed, and accessibility works as before; a value the
/// user set is never overridden.
enum AccessibilityBus {
    /// Sets the variables, before GTK or the engine start (the first thing `main` does).
    /// - Parameter environment: the process's environment.
    static func quietWhereThereIsNone(_ environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard !isReachable(environment) else { return }
        if environment["WEBKIT_A11Y_BUS_ADDRESS"] == nil { setenv("WEBKIT_A11Y_BUS_ADDRESS", "", 1) }
        if environment["NO_AT_BRIDGE"] == nil { setenv("NO_AT_BRIDGE", "1", 1) }
    }

    /// Whether an accessibility bus may be found: one is named, or a session bus (which starts
    /// one on demand) is there.
    static func isReachable(_ environment: [String: String]) -> Bool {
        if let address = environment["AT_SPI_BUS_ADDRESS"], !address.isEmpty { return true }
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return true }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            var info = stat()
            if stat(runtime + "/bus", &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK { return true }
        }
        return false
    }
}
