/// Whether the device can reach the network, as the platform knows it: the signal that lets
/// queued captures leave when the connection returns, with no call of the app's
///.
///
/// One protocol, one production type per platform: ``GIOConnectivity`` (GIO's
/// `GNetworkMonitor`) on Linux, `PathConnectivity` (`NWPathMonitor`) on Apple platforms;
/// tests feed a host their own values.
public protocol ConnectivitySignal: Sendable {
    /// The current state as soon as it is known (true: the network is reachable), then every
    /// change, until the subscriber stops listening.
    func updates() -> AsyncStream<Bool>
}

/// The platform's connectivity signal: `PathConnectivity` on Apple platforms,
/// ``GIOConnectivity`` on Linux; nil where there is neither.
public func platformConnectivity() -> (any ConnectivitySignal)? {
    #if canImport(Network)
        PathConnectivity.shared
    #elseif canImport(CGIO)
        GIOConnectivity.shared
    #else
        nil
    #endif
}
