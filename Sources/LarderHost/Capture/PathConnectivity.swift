#if canImport(Network)
    import Foundation
    import Network

    /// The connectivity signal on Apple platforms: `NWPathMonitor`, whose path is satisfied when
    /// the network is reachable. One per process (``shared``); its updates arrive on a queue of
    /// its own. Subscribers get the current value once known, then every change.
    ///
    /// `@unchecked Sendable`: its only other state, the monitor, is set up in `init` and used by
    /// `NWPathMonitor` itself on its queue from then on (it is thread-safe); the values and
    /// subscribers are a ``LatestValue``.
    public final class PathConnectivity: ConnectivitySignal, @unchecked Sendable {
        /// The process's monitor.
        public static let shared = PathConnectivity()

        /// What the monitor said last, and its subscribers.
        private let available = LatestValue<Bool>(bufferingNewest: 16)
        private let monitor = NWPathMonitor()

        private init() {
            monitor.pathUpdateHandler = { [weak self] path in self?.available.publish(path.status == .satisfied, onlyChanges: true) }
            monitor.start(queue: DispatchQueue(label: "larder.connectivity"))
        }

        /// The current state once known, then every change.
        public func updates() -> AsyncStream<Bool> { available.subscribe() }
    }
#endif
