import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderPublish
import LarderTestSupport
import LarderTransport
import Testing

/// A host as an app makes it (its default download configuration) moves a patch for the next
/// revision of its journey, and its timeline says so.
@Suite(.serialized) struct JourneyHostPatchTests {
    @Test func theNextRevisionComesAsAPatchAndTheTimelineSaysSo() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let journey = JourneyPublication(id: "onboarding", key: JourneyHostTests.key)
        let first = try work.pack(sampleBundles + "/onboarding")
        try origin.publish([first.archivePath], journey: journey)
        try origin.reload()
        let launch = { () throws -> JourneyHost in try JourneyHostTests().launch(origin, work, renderer: HeadlessRenderer(), sink: Collector()) }
        let host = try launch()
        #expect(try await host.prepare().bundle == first.bundleDigest)
        await host.dispose()

        // Revision 2 changes one colour in the 6 kB stylesheet.
        let copy = work.path + "/onboarding-v2"
        try FileManager.default.copyItem(atPath: sampleBundles + "/onboarding", toPath: copy)
        let css = copy + "/css/onboarding.css"
        let text = try String(contentsOfFile: css, encoding: .utf8)
        try text.replacingOccurrences(of: "#c2410c", with: "#b91c1c").write(toFile: css, atomically: true, encoding: .utf8)
        let second = try work.pack(copy)
        try origin.publish([second.archivePath], journey: journey)
        try origin.clearAccessLog()

        let restarted = try launch()
        #expect(try await restarted.prepare().bundle == second.bundleDigest)
        let fetched = await restarted.timeline().filter { $0.kind == .bundleFetched }.map(\.detail)
        #expect(fetched.count == 1 && fetched[0].contains("; 1 patch applied, 0 fallbacks"), "\(fetched)")
        let log = origin.accessLog
        #expect(log.filter { $0.contains(" /patches/") }.count == 1 && !log.contains { $0.contains(" /objects/") }, "\(log)")
        await restarted.dispose()
    }
}
