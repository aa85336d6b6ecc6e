import Foundation
import LarderCache
import LarderFormat
@testable import LarderHost
import LarderSQLite
import LarderSystem
import LarderTransport
import Testing

@Suite struct CaptureQueueTests {
    let folder: CaptureFolder

    init() throws { folder = try CaptureFolder() }

    @Test func deliversInCreationOrderAcrossBatches() async throws {
        let queue = try CaptureQueue(path: folder.queuePath)
        let events = (0..<7).map { captureEvent($0) }
        for event in events { #expect(try queue.enqueue(event)) }
        let sink = RecordingSink()

        let result = await queue.deliver(to: sink, batchSize: 3)

        #expect(result == CaptureDelivery(delivered: 7, remaining: 0))
        #expect(sink.batchSizes == [3, 3, 1])
        #expect(sink.accepted == events)
        #expect(try queue.pendingCount() == 0)
    }

    @Test func dropsAnIdQueuedTwice() throws {
        let queue = try CaptureQueue(path: folder.queuePath)
        let first = captureEvent(1)
        var again = captureEvent(1)
        again.body = Array("a different body".utf8)

        #expect(try queue.enqueue(first))
        #expect(try !queue.enqueue(again))
        #expect(try queue.pending() == [first])
    }

    @Test func dropsAnIdAlreadyDeliveredEvenAfterReopening() async throws {
        do {
            let queue = try CaptureQueue(path: folder.queuePath)
            try queue.enqueue(captureEvent(1))
            #expect(await queue.deliver(to: RecordingSink()) == CaptureDelivery(delivered: 1, remaining: 0))
            #expect(try !queue.enqueue(captureEvent(1)))
        }
        let reopened = try CaptureQueue(path: folder.queuePath)
        #expect(try !reopened.enqueue(captureEvent(1)))
        #expect(try reopened.pendingCount() == 0)
    }

    @Test func remembersOnlyTheMostRecentDeliveredIds() async throws {
        let queue = try CaptureQueue(path: folder.queuePath, deliveredRetention: 2)
        for number in 1...3 { try queue.enqueue(captureEvent(number)) }
        _ = await queue.deliver(to: RecordingSink(), batchSize: 1)

        #expect(try queue.enqueue(captureEvent(1)))
        #expect(try !queue.enqueue(captureEvent(2)))
        #expect(try !queue.enqueue(captureEvent(3)))
    }

    @Test func keepsEveryFieldAndTheVisitorAcrossReopening() async throws {
        var odd = captureEvent(2, visitor: "josé@example.com", session: "séssion-😀")
        odd.context = ["source": "upgrade_button", "quote": "\"\\\n", "": "empty key", "emoji": "ü😀", "nul": "a\u{0}b"]
        odd.created = Date(timeIntervalSinceReferenceDate: 721_692_800.123_456_7)
        let events = [captureEvent(1), odd, captureEvent(3, body: [])]
        let visitor: String
        do {
            let queue = try CaptureQueue(path: folder.queuePath)
            visitor = try queue.visitor()
            for event in events { try queue.enqueue(event) }
        }

        let reopened = try CaptureQueue(path: folder.queuePath)

        #expect(try reopened.visitor() == visitor)
        #expect(visitor == visitor.lowercased() && UUID(uuidString: visitor) != nil)
        #expect(try reopened.pending() == events)
        let sink = RecordingSink()
        #expect(await reopened.deliver(to: sink) == CaptureDelivery(delivered: 3, remaining: 0))
        #expect(sink.accepted == events)
    }

    @Test func keepsTheOriginalAttributionAfterTheIdentityChanges() async throws {
        let asA = [captureEvent(1, visitor: "user-a", session: "s1"), captureEvent(2, visitor: "user-a", session: "s1")]
        var asB = captureEvent(3, visitor: "user-b", session: "s2")
        asB.revision = 8
        let anonymous: String
        do {
            let queue = try CaptureQueue(path: folder.queuePath)
            anonymous = try queue.visitor()
            for event in asA { try queue.enqueue(event) }
            // The app signs in as user B: new events carry B; queued ones must not move.
            try queue.enqueue(asB)
        }

        let reopened = try CaptureQueue(path: folder.queuePath)
        let sink = RecordingSink()
        _ = await reopened.deliver(to: sink)

        #expect(sink.accepted == asA + [asB])
        #expect(sink.accepted.prefix(2).allSatisfy { $0.visitor == "user-a" && $0.session == "s1" && $0.revision == 7 })
        #expect(try reopened.visitor() == anonymous)
    }

    @Test(arguments: Body.allCases)
    func keepsTheBodyByteForByte(_ kind: Body) async throws {
        let body = kind.bytes
        do {
            let queue = try CaptureQueue(path: folder.queuePath)
            try queue.enqueue(captureEvent(1, body: body))
        }
        let reopened = try CaptureQueue(path: folder.queuePath)
        #expect(try reopened.pending().map { Data($0.body) } == [Data(body)])

        let sink = RecordingSink()
        _ = await reopened.deliver(to: sink)
        #expect(sink.accepted.map { Data($0.body) } == [Data(body)])
    }

    @Test func aFailedBatchStaysQueuedWithEverythingAfterItAndIsDeliveredOnceLater() async throws {
        let (queue, events) = try folder.queue(holding: 5)
        let sink = RecordingSink(failingCalls: [2])

        let failed = await queue.deliver(to: sink, batchSize: 2)

        #expect(failed == CaptureDelivery(delivered: 2, remaining: 3, error: HostError(.unavailable, "")))
        #expect(failed.error?.status == 503)
        #expect(try queue.pending() == Array(events[2...]))

        let retried = await queue.deliver(to: sink, batchSize: 2)

        #expect(retried == CaptureDelivery(delivered: 3, remaining: 0))
        #expect(sink.accepted == events)
    }

    @Test(arguments: [(1, 1, 2), (0, 0, 3), (-4, 0, 3), (9, 3, 0)])
    func aSinkThatSettlesPartOfABatchWithoutSayingWhyStopsDelivery(_ claimed: Int, _ delivered: Int, _ remaining: Int)
        async throws
    {
        let (queue, _) = try folder.queue(holding: 3)

        let result = await queue.deliver(to: MiscountingSink(settled: claimed), batchSize: 3)

        let stopped = delivered < 3 ? HostError(.unavailable, "") : nil
        #expect(result == CaptureDelivery(delivered: delivered, remaining: remaining, error: stopped))
        #expect(try queue.pending() == (0..<3).dropFirst(delivered).map { captureEvent($0) })
    }

    @Test func aDeliveryStartedWhileAnotherRunsDeliversNothingTwice() async throws {
        let (queue, events) = try folder.queue(holding: 4)
        let sink = GatedSink()

        let first = Task { await queue.deliver(to: sink, batchSize: 2) }
        await sink.waitUntilTheFirstCallEntered()
        let second = await queue.deliver(to: sink, batchSize: 2)
        sink.releaseTheFirstCall()
        let firstResult = await first.value

        #expect(second.delivered == 0)
        #expect(firstResult == CaptureDelivery(delivered: 4, remaining: 0))
        #expect(sink.accepted == events)
    }

    @Test func concurrentDeliveriesDeliverEachEventExactlyOnceInOrder() async throws {
        let (queue, events) = try folder.queue(holding: 24)
        let sink = RecordingSink()

        let delivered = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<6 { group.addTask { await queue.deliver(to: sink, batchSize: 1).delivered } }
            return await group.reduce(0, +)
        }
        let rest = await queue.deliver(to: sink, batchSize: 1)

        #expect(delivered + rest.delivered == events.count)
        #expect(sink.accepted == events)
    }

    @Test func stopsAfterMaxBatches() async throws {
        let (queue, events) = try folder.queue(holding: 10)
        let sink = RecordingSink()

        let result = await queue.deliver(to: sink, batchSize: 3, maxBatches: 2)

        #expect(result == CaptureDelivery(delivered: 6, remaining: 4))
        #expect(sink.batchSizes == [3, 3])
        #expect(try queue.pending() == Array(events[6...]))
    }

    @Test func removeAllDropsQueuedEventsAndKeepsTheVisitor() async throws {
        let queue = try CaptureQueue(path: folder.queuePath)
        let visitor = try queue.visitor()
        for number in 0..<3 { try queue.enqueue(captureEvent(number)) }

        try queue.removeAll()

        #expect(try queue.pendingCount() == 0)
        #expect(try queue.visitor() == visitor)
        let sink = RecordingSink()
        #expect(await queue.deliver(to: sink) == CaptureDelivery(delivered: 0, remaining: 0))
        #expect(sink.accepted.isEmpty)
    }

    @Test(arguments: ["", "line\nbreak", "tab\there"])
    func refusesAnEventThatCannotBeDelivered(_ id: String) throws {
        let queue = try CaptureQueue(path: folder.queuePath)
        var event = captureEvent(1)
        event.id = id
        let error = #expect(throws: HostError.self) { try queue.enqueue(event) }
        #expect(error?.code == .malformedDocument)
        #expect(try queue.pendingCount() == 0)
    }

    @Test(arguments: ForeignFile.allCases)
    func refusesAFileThatIsNotACaptureQueueAndLeavesItAlone(_ kind: ForeignFile) throws {
        let path = folder.queuePath
        try kind.create(at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let error = #expect(throws: HostError.self) { try CaptureQueue(path: path) }

        #expect(error?.code == .storage)
        #expect(error?.storageError?.code == .foreign)
        #expect(error?.cacheError == nil)
        #expect(error?.description.contains(path) == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}

/// Bodies that must come back byte for byte.
enum Body: String, CaseIterable, CustomTestStringConvertible {
    case invalidUTF8, nulBytes, empty, oneMebibyte

    var testDescription: String { rawValue }

    var bytes: [UInt8] {
        switch self {
        case .invalidUTF8: [0xFF, 0xFE, 0xC3, 0x28, 0x80, 0xED, 0xA0, 0x80]
        case .nulBytes: [0x7B, 0x00, 0x00, 0x7D]
        case .empty: []
        case .oneMebibyte: (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        }
    }
}

/// Files a capture queue must refuse to open.
enum ForeignFile: String, CaseIterable, CustomTestStringConvertible {
    case text, binary, otherDatabase, newerSchema

    var testDescription: String { rawValue }

    func create(at path: String) throws {
        switch self {
        case .text:
            try Data("my notes, not a queue\n".utf8).write(to: URL(fileURLWithPath: path))
        case .binary:
            try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: path))
        case .otherDatabase:
            let database = try SQLiteDatabase<SQLiteError>(path: path)
            try database.execute("CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES('keep me');")
        case .newerSchema:
            do {
                let queue = try CaptureQueue(path: path)
                try queue.enqueue(captureEvent(1))
            }
            let database = try SQLiteDatabase<SQLiteError>(path: path)
            try database.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
        }
    }
}

@Suite struct HTTPCaptureSinkTests {
    let folder: CaptureFolder

    init() throws { folder = try CaptureFolder() }
    static let endpoint = URL(string: "https://collect.example.com/v1/capture")!

    @Test func postsEachEventWithItsBodyAndAttribution() async throws {
        let transport = RecordingTransport(status: 202)
        let sink = HTTPCaptureSink(endpoint: Self.endpoint, publishableKey: "pk_live_123", transport: transport)
        var first = captureEvent(1, body: [0xFF, 0x00, 0x7B])
        first.context = ["source": "upgrade_button", "plan": "pro"]
        let second = captureEvent(2)

        let receipt = await sink.deliver([first, second])

        #expect(receipt.settled == 2 && receipt.refused.isEmpty && receipt.error == nil)

        let requests = transport.requests
        #expect(requests.count == 2)
        #expect(requests.map(\.method) == ["POST", "POST"])
        #expect(requests.map(\.url) == [Self.endpoint, Self.endpoint])
        #expect(requests.map(\.body) == [Data([0xFF, 0x00, 0x7B]), Data(second.body)])
        #expect(requests.first?.timeout == .seconds(30))
        #expect(
            requests.first?.headers == [
                "Content-Type": "application/octet-stream",
                "X-Larder-Key": "pk_live_123",
                "X-Larder-Event": "event-1",
                "X-Larder-Visitor": "visitor-a",
                "X-Larder-Session": "session-1",
                "X-Larder-Journey": "onboarding",
                "X-Larder-Revision": "7",
                "X-Larder-Bundle": first.bundle.description,
                "X-Larder-Context": #"{"plan":"pro","source":"upgrade_button"}"#,
                "X-Larder-Created": "2023-11-14T22:13:21.123Z",
            ])
        #expect(requests.last?.headers["X-Larder-Event"] == "event-2")
        #expect(requests.last?.headers["X-Larder-Context"] == #"{"source":"test"}"#)
    }

    enum Outcome { case delivered, refused, kept }

    @Test(arguments: [
        (200, Outcome.delivered), (201, .delivered), (204, .delivered), (299, .delivered),
        (400, .refused), (409, .refused), (413, .refused), (415, .refused), (422, .refused), (431, .refused),
        (304, .kept), (401, .kept), (403, .kept), (404, .kept), (408, .kept), (410, .kept), (429, .kept), (500, .kept),
        (503, .kept),
    ])
    func settlesEachEventByTheEndpointsStatus(_ status: Int, _ outcome: Outcome) async throws {
        let queue = try CaptureQueue(path: folder.queuePath)
        let events = [captureEvent(1), captureEvent(2)]
        for event in events { try queue.enqueue(event) }
        let sink = HTTPCaptureSink(endpoint: Self.endpoint, publishableKey: "pk", transport: RecordingTransport(status: status))

        let result = await queue.deliver(to: sink)

        switch outcome {
        case .delivered:
            #expect(result == CaptureDelivery(delivered: 2, remaining: 0))
        case .refused:
            let reason = HostError(.refused, "", status: status)
            #expect(
                result == CaptureDelivery(
                    delivered: 0, refused: [CaptureRefusal(id: "event-1", reason: reason), CaptureRefusal(id: "event-2", reason: reason)],
                    remaining: 0))
            #expect(try queue.pending().isEmpty)
            #expect(try queue.enqueue(captureEvent(1)) == false, "a refused event captured again stays dropped")
        case .kept:
            #expect(result == CaptureDelivery(delivered: 0, remaining: 2, error: HostError(.unavailable, "")))
            #expect(result.error?.status == status)
            #expect(try queue.pending() == events)
        }
    }

    @Test func anEventRefusedForGoodDoesNotBlockTheEventsBehindIt() async throws {
        let (queue, _) = try folder.queue(holding: 5)
        let transport = RecordingTransport(status: 200)
        transport.answer("event-2", with: 422)
        let sink = HTTPCaptureSink(endpoint: Self.endpoint, publishableKey: "pk", transport: transport)

        let first = await queue.deliver(to: sink, batchSize: 2)
        let again = await queue.deliver(to: sink, batchSize: 2)

        let refusal = CaptureRefusal(id: "event-2", reason: HostError(.refused, "", status: 422))
        #expect(first == CaptureDelivery(delivered: 4, refused: [refusal], remaining: 0))
        #expect(first.refused.first?.reason.isRetryable == false)
        #expect(again == CaptureDelivery(delivered: 0, remaining: 0))
        #expect(transport.events == ["event-0", "event-1", "event-2", "event-3", "event-4"])
    }

    @Test func eventsSettledBeforeAFailureInTheirBatchAreNotSentAgain() async throws {
        let (queue, events) = try folder.queue(holding: 5)
        let transport = RecordingTransport(status: 200)
        transport.answer("event-1", with: 400)
        transport.answer("event-3", with: 503)
        let sink = HTTPCaptureSink(endpoint: Self.endpoint, publishableKey: "pk", transport: transport)

        let failed = await queue.deliver(to: sink, batchSize: 5)

        let refusal = CaptureRefusal(id: "event-1", reason: HostError(.refused, "", status: 400))
        #expect(failed == CaptureDelivery(delivered: 2, refused: [refusal], remaining: 2, error: HostError(.unavailable, "")))
        #expect(failed.error?.status == 503)
        #expect(try queue.pending() == Array(events[3...]))

        transport.answer("event-3", with: 200)
        let retried = await queue.deliver(to: sink, batchSize: 5)

        #expect(retried == CaptureDelivery(delivered: 2, remaining: 0))
        #expect(transport.events == ["event-0", "event-1", "event-2", "event-3", "event-3", "event-4"])
    }

    @Test func aTransportFailureKeepsTheEventsQueued() async throws {
        let queue = try CaptureQueue(path: folder.queuePath)
        try queue.enqueue(captureEvent(1))
        let transport = RecordingTransport(status: 200, failure: TransportError(.connection, "offline"))
        let sink = HTTPCaptureSink(endpoint: Self.endpoint, publishableKey: "pk", transport: transport)

        let result = await queue.deliver(to: sink)

        #expect(result == CaptureDelivery(delivered: 0, remaining: 1, error: HostError(.unavailable, "")))
        #expect(result.error?.transportError?.code == .connection)
        #expect(try queue.pending() == [captureEvent(1)])
    }

    @Test(arguments: [
        (1_700_000_000.123, "2023-11-14T22:13:20.123Z"),
        (0, "1970-01-01T00:00:00.000Z"),
        (-0.001, "1969-12-31T23:59:59.999Z"),
        (0.9996, "1970-01-01T00:00:01.000Z"),
        (951_782_400, "2000-02-29T00:00:00.000Z"),
        (1_709_164_800.5, "2024-02-29T00:00:00.500Z"),
        (253_402_300_799.999, "9999-12-31T23:59:59.999Z"),
        (-62_135_596_800, "0001-01-01T00:00:00.000Z"),
    ])
    func writesTheCreatedDateAsISO8601UTCWithMilliseconds(_ seconds: Double, _ expected: String) {
        #expect(HTTPCaptureSink.timestamp(Date(timeIntervalSince1970: seconds)) == expected)
    }
}

// MARK: - Fixtures

/// A scratch folder for one test, removed when the test ends.
final class CaptureFolder: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-capture-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        do { try FileManager.default.removeItem(atPath: path) } catch { print("could not remove \(path): \(error)") }
    }

    var queuePath: String { path + "/capture.sqlite" }

    /// A new queue in this folder holding `count` events (`captureEvent(0)` on), and the events.
    func queue(holding count: Int) throws -> (CaptureQueue, [CaptureEvent]) {
        let queue = try CaptureQueue(path: queuePath)
        let events = (0..<count).map { captureEvent($0) }
        for event in events { try queue.enqueue(event) }
        return (queue, events)
    }
}

/// Event `number` with fixed, distinct attribution.
func captureEvent(_ number: Int, visitor: String = "visitor-a", session: String = "session-1", body: [UInt8]? = nil)
    -> CaptureEvent
{
    CaptureEvent(
        id: "event-\(number)", visitor: visitor, session: session, journey: "onboarding", revision: 7,
        bundle: SHA256Hasher.hash(Array("bundle".utf8)), context: ["source": "test"],
        body: body ?? Array(#"{"answer":\#(number)}"#.utf8),
        created: Date(timeIntervalSince1970: 1_700_000_000.123 + Double(number)))
}

/// A sink that records the events of every call it accepts; it refuses (with a 503) the calls
/// numbered (from 1) in `failingCalls`, and every call while `failing` is set.
final class RecordingSink: CaptureSink {
    private struct State {
        var calls = 0
        var failing = false
        var accepted: [CaptureEvent] = []
        var batchSizes: [Int] = []
    }

    private let state = Locked(State())
    private let failingCalls: Set<Int>

    init(failingCalls: Set<Int> = []) { self.failingCalls = failingCalls }

    var accepted: [CaptureEvent] { state.withLock { $0.accepted } }
    var batchSizes: [Int] { state.withLock { $0.batchSizes } }
    /// Deliveries asked of it, accepted or not.
    var calls: Int { state.withLock { $0.calls } }
    var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    func deliver(_ events: [CaptureEvent]) async -> CaptureReceipt {
        state.withLock { state in
            state.calls += 1
            if state.failing || failingCalls.contains(state.calls) {
                return .failed(HostError(.unavailable, "the test sink refused", status: 503))
            }
            state.accepted += events
            state.batchSizes.append(events.count)
            return .accepted(events.count)
        }
    }
}

/// A sink whose first call waits until the test releases it; later calls go straight through.
final class GatedSink: CaptureSink {
    private let entered = AsyncStream<Void>.makeStream()
    private let release = AsyncStream<Void>.makeStream()
    private let state = Locked((calls: 0, accepted: [CaptureEvent]()))

    var accepted: [CaptureEvent] { state.withLock { $0.accepted } }

    func waitUntilTheFirstCallEntered() async {
        for await _ in entered.stream { return }
    }

    func releaseTheFirstCall() { release.continuation.yield() }

    func deliver(_ events: [CaptureEvent]) async -> CaptureReceipt {
        let isFirst = state.withLock { state in
            state.calls += 1
            return state.calls == 1
        }
        if isFirst {
            entered.continuation.yield()
            for await _ in release.stream { break }
        }
        state.withLock { $0.accepted += events }
        return .accepted(events.count)
    }
}

/// A sink that claims to have settled `settled` events of every batch, without an error.
struct MiscountingSink: CaptureSink {
    let settled: Int

    func deliver(_ events: [CaptureEvent]) async -> CaptureReceipt { CaptureReceipt(settled: settled) }
}

/// An HTTP transport that records requests and answers each with one status (or the status
/// set for its `X-Larder-Event`), or fails.
final class RecordingTransport: HTTPTransport {
    private let status: Int
    private let failure: TransportError?
    private let recorded = Locked<[HTTPRequest]>([])
    private let statusByEvent = Locked<[String: Int]>([:])

    init(status: Int, failure: TransportError? = nil) {
        self.status = status
        self.failure = failure
    }

    var requests: [HTTPRequest] { recorded.withLock { $0 } }

    /// The events of the requests so far, in order.
    var events: [String] { requests.map { $0.headers["X-Larder-Event"] ?? "" } }

    /// Answers requests for event `id` with `status` from now on.
    func answer(_ id: String, with status: Int) { statusByEvent.withLock { $0[id] = status } }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        if let failure { throw failure }
        let status = statusByEvent.withLock { $0[request.headers["X-Larder-Event"] ?? ""] } ?? status
        return HTTPResponse(status: status, headers: [:], body: Data())
    }
}
