import Foundation
import LarderFormat
import LarderHost
import LarderPack
import LarderPublish

extension HostFixture {
    /// Points `events` at `journey` in the origin's triggers document; returns it.
    @discardableResult
    func publishTriggers(
        _ events: [String], journey: String = HostFixture.journey, reentry: TriggerDocument.Reentry = .always, signingKey: SigningKey? = nil
    ) throws -> TriggerDocument {
        try OriginPublisher.publishTriggers(
            TriggerPublication(journey: journey, events: events, reentry: reentry, now: clock.now, signingKey: signingKey),
            target: LocalFolderTarget(folder: root + "/origin")
        ).document
    }

    /// A trigger router on this fixture's origin, cache, clock, sink, coordinator and storage
    /// (kept between routers of one fixture, as across app restarts); headless renderers unless
    /// `renderers` makes them.
    func triggers(
        configuration: JourneyConfiguration? = nil, renderers: @escaping @Sendable (String) -> any JourneyRenderer = { _ in ScriptedRenderer() },
        connectivity: (any ConnectivitySignal)? = nil
    ) throws -> JourneyTriggers {
        try JourneyTriggers(
            configuration: configuration ?? self.configuration(), cache: cache, storage: root + "/host", renderer: renderers, transport: origin,
            clock: clock, captureSink: sink, coordinator: coordinator, connectivity: connectivity)
    }
}
