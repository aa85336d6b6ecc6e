#if canImport(Network)
    import Foundation
    import LarderSystem
    import Network

    /// The connectivity signal on Apple platforms: `NWPathMonitor`, whose path is satisfied when
    /// the network is reachable. One per process (``shared``); its updates arrive on a queue of
    /// its own. Subscribers get the current value once known, then every change.
    ///
    /// `@unchecked Sendable`: its only other state, the monitor, is set up in `init` and used by
    /// `NWPathMonitor` itself on its queue from then on (it is thread-safe); the values and
    /// subscribers are behind a `Locked`.
    public final class PathConnectivity: ConnectivitySignal, @unchecked Sendable {
        /// The process's monitor.
        public static let shared = PathConnectivity()

        private struct State {
            var available: Bool?
            var subscribers: [UUID: AsyncStream<Bool>.Continuation] = [:]
        }

        private let state = Locked(State())
        private let monitor = NWPathMonitor()

        private init() {
            monitor.pathUpdateHandler = { [weak self] path in self?.publish(path.status == .satisfied) }
            monitor.start(queue: DispatchQueue(label: "larder.connectivity"))
        }

        /// The current state once known, then every change.
        public func updates() -> AsyncStream<Bool> {
            let (stream, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(16))
            let id = UUID()
            state.withLock { state in
                state.subscribers[id] = continuation
                if let available = state.available { continuation.yield(available) }
            }
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { $0.subscribers[id] = nil }
            }
            return stream
        }

        private func publish(_ available: Bool) {
            state.withLock { state in
                guard state.available != available else { return }
                state.available = available
                for continuation in state.subscribers.values { continuation.yield(available) }
            }
        }
    }
#endif
