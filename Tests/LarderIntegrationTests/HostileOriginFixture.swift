import Foundation
import LarderCache
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import LarderSystem

/// The onboarding and paywall samples published to an origin folder (journey `onboarding`,
/// key `pk_hostile`), packed once for every hostile-origin test.
final class HostileFixture: Sendable {
    let work: Workspace
    let onboarding: PackReport
    let paywall: PackReport
    let root: String
    /// The largest object onboarding needs that paywall lacks: what a fetch into a cache that
    /// holds paywall downloads on its own.
    let object: (digest: Digest, size: Int64)
    /// The most bytes onboarding's archive can have.
    let archiveBound: Int64
    /// A manifest of 100,001 (empty) files in under 16 MiB: only the file-count cap refuses it.
    let crowdedManifest: [UInt8]

    static let key = "pk_hostile"
    static let journey = "onboarding"

    private static let made = Locked<HostileFixture?>(nil)

    static func shared() throws -> HostileFixture {
        try made.withLock { made in
            if let made { return made }
            let fixture = try HostileFixture()
            made = fixture
            return fixture
        }
    }

    private init() throws {
        work = try Workspace()
        onboarding = try work.pack(sampleBundles + "/onboarding")
        paywall = try work.pack(sampleBundles + "/paywall")
        root = work.path + "/origin"
        _ = try OriginPublisher.publish(
            archives: [paywall.archivePath, onboarding.archivePath], to: root,
            journey: JourneyPublication(id: Self.journey, key: Self.key))
        guard let needs = try BundleVerifier.verify(archiveAt: onboarding.archivePath).manifest,
            let held = try BundleVerifier.verify(archiveAt: paywall.archivePath).manifest
        else { throw IntegrationError("the samples do not verify") }
        let has = Set(held.files.map(\.digest))
        guard let largest = needs.files.filter({ !has.contains($0.digest) }).max(by: { $0.size < $1.size }) else {
            throw IntegrationError("onboarding needs nothing paywall lacks")
        }
        object = (largest.digest, largest.size)
        archiveBound = needs.archiveSizeBound(manifestBytes: needs.canonicalBytes.count)
        var text = #"{"entry":"index.html","files":["#
        text += Array(repeating: "{}", count: Manifest.maximumFiles + 1).joined(separator: ",")
        text += #"],"format":1,"name":"crowded","renderer":{"capabilities":["prepare"],"protocol":1}}"#
        crowdedManifest = Array(text.utf8)
    }

    var onboardingArchive: String { "/bundles/\(onboarding.bundleDigest.hex).tar.gz" }
    var onboardingManifest: String { "/bundles/\(onboarding.bundleDigest.hex)/manifest.json" }
    var objectPath: String { "/objects/\(object.digest.hex)" }
    var journeyPath: String { "/journeys/\(Self.journey).json" }

    /// The bytes the origin has at `path`.
    func bytes(at path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: root + path)))
    }

    /// A fresh cache folder, holding paywall when `seeded`.
    func cache(seeded: Bool) throws -> String {
        let path = work.path + "/cache-\(UUID().uuidString)"
        let cache = try LarderCache(at: path)
        if seeded { _ = try cache.install(archiveAt: paywall.archivePath) }
        return path
    }
}
