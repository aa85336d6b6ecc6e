import Foundation
import LarderFormat
import LarderHost
import LarderSystem
import LarderTestSupport
import Testing

/// Issue 20: content that floods the renderer bridge cannot push the host's own timeline
/// entries out, and what it posts past the bounds is refused and counted, not logged one by one.
@Suite("Bridge floods")
struct BridgeFloodTests {
    /// Waits until the host passed on a custom message named `name` (the bridge keeps order, so
    /// everything posted before it was handled).
    static func waitFor(_ name: String, from host: JourneyHost) async {
        for await message in host.messages {
            if case .custom(name, _) = message { return }
        }
    }

    @Test("20,000 captures posted while hidden leave the host's own entries in the timeline")
    func aFloodWhileHiddenKeepsTheHostsEntries() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.prepare()
        for index in 0..<20_000 { renderer.post(.capture(event: "flood-\(index)", body: Array("{}".utf8))) }
        // Past the rate limit's refill, a message that gets through marks the end.
        fixture.clock.advance(by: .seconds(60))
        renderer.post(.custom(name: "end", payload: .null))
        await Self.waitFor("end", from: host)
        try await host.present()
        await host.dismiss()
        let timeline = await host.timeline()
        let kinds = Set(timeline.map(\.kind))
        for kind: TimelineEntry.Kind in [.fetched, .rendererReady, .presented, .dismissed] {
            #expect(kinds.contains(kind), "\(kind) was pushed out: \(timeline.suffix(3))")
        }
        #expect(timeline.filter { $0.kind == .captureDropped }.count <= 100)
        // Counted, in one entry for the hidden time: 100 at once, then the end message.
        #expect(await host.bridgeCounts() == BridgeCounts(accepted: 101, overRate: 19_900))
        let refused = timeline.filter { $0.kind == .bridgeRefused }.map(\.detail)
        #expect(refused == ["while hidden: 19900 of 20001 bridge messages refused: 19900 past the rate limit (100 at once, then 20 a second)"])
        await host.dispose()
    }

    @Test("Each presentation has its own rate limit, and its refusals are one entry when it ends")
    func eachPresentationHasItsOwnLimit() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        configuration.capture = nil
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer, configuration: configuration)
        try await host.prepare()
        for _ in 0..<150 { renderer.post(.navigate(screen: "hidden.html")) }
        let session = try await host.present()
        for _ in 0..<150 { renderer.post(.navigate(screen: "shown.html")) }
        renderer.post(.custom(name: "refused", payload: .null))
        await host.dismiss()
        fixture.clock.advance(by: .seconds(1))
        renderer.post(.custom(name: "end", payload: .null))
        var screens: [String] = []
        for await message in host.messages {
            if case .navigate(let screen) = message { screens.append(screen) }
            if case .custom("end", _) = message { break }
            #expect(message != .custom(name: "refused", payload: .null))
        }
        #expect(screens == Array(repeating: "hidden.html", count: 100) + Array(repeating: "shown.html", count: 100))
        let refused = await host.timeline().filter { $0.kind == .bridgeRefused }.map(\.detail)
        #expect(refused.count == 2)
        #expect(refused.first?.hasPrefix("while hidden: 50 of 150 bridge messages refused") == true, "\(refused)")
        #expect(refused.last?.hasPrefix("session \(session.id): 51 of 151 bridge messages refused") == true, "\(refused)")
        await host.dispose()
    }

    @Test("A message over 64 KiB is refused before it is parsed and counted; one at the limit is delivered")
    func oversizedMessagesAreRefused() async throws {
        let limit = BridgeLimits().maximumMessageBytes
        #expect(limit == 64 << 10)
        let delivered = Locked<[BridgeMessage]>([])
        let clock = ManualClock()
        let bridge = RendererBridge(clock: clock) { message in delivered.withLock { $0.append(message) } }
        // Not JSON at all, but too large: the size is what is refused.
        let garbage = [UInt8](repeating: UInt8(ascii: "{"), count: limit + 1)
        let error = thrownError { () throws(HostError) in try bridge.receive(garbage) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message == "the bridge message has 65537 bytes; at most 65536 are accepted")
        // A custom message of exactly the limit, then one byte more.
        let prefix = #"{"name":"n","payload":""#
        let suffix = #"","type":"custom"}"#
        let filler = String(repeating: "x", count: limit - prefix.utf8.count - suffix.utf8.count)
        let fitting = Array((prefix + filler + suffix).utf8)
        #expect(fitting.count == limit)
        #expect(try bridge.receive(fitting) == .custom(name: "n", payload: .string(filler)))
        let message = try BridgeMessage(json: fitting)
        guard case .custom(let name, .string(let text)) = message else { return }
        #expect(!bridge.send(.custom(name: name, payload: .string(text + "x"))))
        #expect(bridge.send(.custom(name: name, payload: .string(text))))
        // Malformed messages are counted too.
        #expect(thrownError { () throws(HostError) in try bridge.receive(Array("[]".utf8)) }?.code == .malformedDocument)
        #expect(delivered.withLock { $0.count } == 2)
        #expect(bridge.counts == BridgeCounts(accepted: 2, tooLarge: 2, overRate: 0, malformed: 1))
    }

    @Test("The headless renderer holds content to the bridge's bounds")
    func theHeadlessRendererIsBounded() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        configuration.capture = nil
        let renderer = HeadlessRenderer()
        let host = try fixture.host(renderer, configuration: configuration)
        try await host.prepare()
        var refusals: [HostError.Code] = []
        for index in 0..<1_000 {
            do { try renderer.receive(Array(#"{"type":"navigate","screen":"s\#(index).html"}"#.utf8)) } catch { refusals.append(error.code) }
        }
        #expect(refusals.count == 900 && refusals.allSatisfy { $0 == .limitExceeded })
        // The screen follows what was delivered, not what was refused.
        #expect(renderer.state == .loaded(visible: false, screen: "s99.html"))
        #expect(await host.bridgeCounts() == BridgeCounts(accepted: 100, overRate: 900))
        await host.dispose()
    }
}

/// The HostError `body` throws, nil if it throws none.
func thrownError(_ body: () throws(HostError) -> Void) -> HostError? {
    do { try body() } catch { return error }
    return nil
}
