#if canImport(CGIO)
    import CGIO
    import Foundation
    import LarderSystem

    /// The connectivity signal on Linux: GIO's network monitor (`GNetworkMonitor`, netlink
    /// underneath), whose `network-changed` signal says whether a route to the network exists.
    ///
    /// One per process (``shared``). The monitor is created on a thread of its own that runs a
    /// GLib main loop on a main context of its own (pushed as that thread's default, so the
    /// monitor emits its signal there), for the life of the process; no call blocks on it. When
    /// another part of the process created GIO's default monitor first (WebKitGTK does, on the
    /// GTK main context), the signal arrives on that context's thread instead, which is as good:
    /// the handler only publishes the value. Subscribers get the current value once known, then
    /// every change.
    public final class GIOConnectivity: ConnectivitySignal {
        /// The process's monitor.
        public static let shared = GIOConnectivity()

        private struct State {
            var started = false
            /// The monitor's address once created (`GNetworkMonitor *`), for ``emitForTesting(available:)``.
            var monitor: UInt?
        }

        private let state = Locked(State())
        /// What the monitor said last, and its subscribers.
        private let available = LatestValue<Bool>(bufferingNewest: 16)

        private init() {}

        /// The current state once known, then every change.
        public func updates() -> AsyncStream<Bool> {
            startIfNeeded()
            return available.subscribe()
        }

        /// What the monitor said last; nil before its first word.
        public var current: Bool? { available.current }

        /// Emits the monitor's `network-changed` signal with `available`, as GIO does when the
        /// routes change (`g_signal_emit_by_name`), so a test drives the real handler. Nothing
        /// before the monitor exists.
        package func emitForTesting(available: Bool) {
            guard let address = state.withLock({ $0.monitor }), let monitor = OpaquePointer(bitPattern: address) else { return }
            larder_gio_emit_network_changed(monitor, available ? 1 : 0)
        }

        /// Publishes a value to every subscriber, in order.
        fileprivate func publish(_ value: Bool) {
            available.publish(value)
        }

        private func startIfNeeded() {
            let start = state.withLock { state -> Bool in
                defer { state.started = true }
                return !state.started
            }
            guard start else { return }
            let thread = Thread { [self] in run() }
            thread.name = "larder-connectivity"
            thread.start()
        }

        /// The monitor's thread: its own main context, the monitor, the handler, then the loop
        /// for ever.
        private func run() {
            let context = g_main_context_new()
            g_main_context_push_thread_default(context)
            guard let monitor = g_network_monitor_get_default() else { return }
            state.withLock { $0.monitor = UInt(bitPattern: monitor) }
            // `self` is the process's one instance and is never freed: an unretained pointer.
            let box = Unmanaged.passUnretained(self).toOpaque()
            _ = larder_gio_connect_network_changed(
                monitor,
                { _, available, box in
                    guard let box else { return }
                    Unmanaged<GIOConnectivity>.fromOpaque(box).takeUnretainedValue().publish(available != 0)
                }, box)
            publish(g_network_monitor_get_network_available(monitor) != 0)
            let loop = g_main_loop_new(context, 0)
            g_main_loop_run(loop)
        }
    }
#endif
