import Foundation
@testable import LarderHost
import LarderTestSupport
import Testing

/// Seed 001's foreground grace: a presentation asked for just after the app returned to the
/// foreground appears only once the grace (0.5 s by default, under 1 s) has passed.
@Suite("Foreground grace")
struct ForegroundGraceTests {
    static let returned = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("The decision over the return, the time now and the grace", arguments: [
        (nil, 0.0, 500, nil),  // never returned since the host started: at once
        (0.0, 0.0, 500, 0.5),  // just returned: at the end of the grace
        (0.0, 0.2, 500, 0.5),
        (0.0, 0.5, 500, nil),  // the grace has passed
        (0.0, 3.0, 500, nil),
        (0.0, 0.0, 0, nil),  // no grace
        (0.0, 0.0, -100, nil),  // a negative grace is none
        (0.0, 0.0, 5_000, 0.999),  // never a second or more
    ] as [(Double?, Double, Int, Double?)])
    func decision(returnedAt: Double?, now: Double, graceMilliseconds: Int, appearsAt: Double?) {
        let appearance = ForegroundGrace.appearance(
            returnedToForeground: returnedAt.map { Self.returned.addingTimeInterval($0) }, now: Self.returned.addingTimeInterval(now),
            grace: .milliseconds(graceMilliseconds))
        let seconds = appearance.map { $0.timeIntervalSince(Self.returned) }
        #expect((seconds == nil) == (appearsAt == nil), "\(String(describing: seconds))")
        if let seconds, let appearsAt { #expect(abs(seconds - appearsAt) < 0.000_5, "\(seconds)") }
    }

    @Test("Presenting just after the return to the foreground waits out the grace, on the manual clock")
    func presentationWaitsAfterTheReturn() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.prepare()
        await host.setForeground(false)
        await host.setForeground(true)

        let presentation = Task { try await host.present() }

        #expect(await eventually { await host.timeline().contains { $0.kind == .foregroundGrace } })
        fixture.clock.advance(by: .milliseconds(499))
        for _ in 0..<200 { await Task.yield() }
        #expect(renderer.record.shown.isEmpty, "not before the grace has passed")
        #expect(await host.presentationState == .hidden)
        fixture.clock.advance(by: .milliseconds(1))
        let session = try await presentation.value
        #expect(renderer.record.shown == [session])
        await host.dispose()
    }

    @Test("Without a return to the foreground, or once the grace has passed, a presentation appears at once")
    func atOnceOtherwise() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        _ = try await host.present()
        await host.dismiss()
        await host.setForeground(false)
        await host.setForeground(true)
        fixture.clock.advance(by: .milliseconds(500))

        _ = try await host.present()

        #expect(renderer.record.shown.count == 2)
        #expect(await !host.timeline().contains { $0.kind == .foregroundGrace })
        await host.dispose()
    }
}
