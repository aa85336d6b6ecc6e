import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderPublish
import LarderTestSupport

/// A scratch world for host tests: packed samples, a published origin served by a
/// ``FakeOrigin``, a cache, a manual clock and a capture sink. Removed when the test ends.
final class HostFixture: @unchecked Sendable {
    static let key = "pk_test"
    static let journey = "onboarding"

    let root: String
    let cache: LarderCache
    let clock = ManualClock()
    let origin: FakeOrigin
    let sink = RecordingSink()
    /// The hosts of this fixture present one at a time among themselves, not with other tests'.
    let coordinator = PresentationCoordinator()
    private var archives: [String: String] = [:]

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("larder-host-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/origin", withIntermediateDirectories: true)
        cache = try LarderCache(at: root + "/cache")
        origin = FakeOrigin(root: root + "/origin")
    }

    deinit {
        do { try FileManager.default.removeItem(atPath: root) } catch { print("could not remove \(root): \(error)") }
    }

    /// The packed archive of a sample (packed once per fixture).
    func archive(_ sample: String) throws -> String {
        if let path = archives[sample] { return path }
        let report = try Packer.pack(source: sampleBundles + "/" + sample, into: root + "/packed")
        archives[sample] = report.archivePath
        return report.archivePath
    }

    /// Points the journey at a sample's bundle; returns the journey document.
    @discardableResult
    func publish(_ sample: String, refresh: Int64 = 600, journey: String = HostFixture.journey) throws -> JourneyDocument {
        let report = try OriginPublisher.publish(
            archives: [try archive(sample)], to: root + "/origin",
            journey: JourneyPublication(id: journey, key: Self.key, refresh: refresh, now: clock.now))
        guard let document = report.journey else { throw HostError(.unavailable, "publish wrote no journey document") }
        return document
    }

    func configuration(
        key: String = HostFixture.key, journey: String = HostFixture.journey, identity: String? = nil,
        embedded: String? = nil
    ) -> JourneyConfiguration {
        JourneyConfiguration(
            publishableKey: key, journeyID: journey, identity: identity.map(JourneyIdentity.init(externalID:)),
            origin: URL(string: "http://origin.test/")!, embeddedDefault: embedded)
    }

    /// A host on this fixture's origin, cache, clock and sink; `storage` is kept between hosts
    /// of one fixture, as across app restarts.
    func host(
        _ renderer: any JourneyRenderer = ScriptedRenderer(), configuration: JourneyConfiguration? = nil
    ) throws -> JourneyHost {
        try JourneyHost(
            configuration: configuration ?? self.configuration(), cache: cache, renderer: renderer, storage: root + "/host",
            transport: origin, clock: clock, captureSink: sink, coordinator: coordinator)
    }
}
