import LarderCache
import LarderTransport

/// What every host a ``JourneyTriggers`` router makes shares: one cache, one storage folder,
/// one transport, clock, capture sink, coordinator and connectivity signal, and how a
/// journey's renderer is made. A value the router holds, so the router's own fields are its
/// state (the hosts made, the gate, the verified document), not its ingredients.
struct TriggerHostParts: Sendable {
    let cache: LarderCache
    let storage: String
    let transport: any HTTPTransport
    let clock: any HostClock
    let captureSink: (any CaptureSink)?
    let coordinator: PresentationCoordinator
    let connectivity: (any ConnectivitySignal)?
    let makeRenderer: @Sendable (String) -> any JourneyRenderer

    /// A host for `journey`: the base configuration with the journey's id, over the shared parts.
    func host(for journey: String, base configuration: JourneyConfiguration) throws(HostError) -> JourneyHost {
        var scoped = configuration
        scoped.journeyID = journey
        return try JourneyHost(
            configuration: scoped, cache: cache, renderer: makeRenderer(journey), storage: storage, transport: transport, clock: clock,
            captureSink: captureSink, coordinator: coordinator, connectivity: connectivity)
    }
}
