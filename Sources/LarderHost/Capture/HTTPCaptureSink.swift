import Foundation
import LarderFormat
import LarderTransport

/// A ``CaptureSink`` that POSTs each event as its own request to a collection endpoint.
///
/// The request body is the event's body, byte for byte; attribution travels in headers:
/// `X-Larder-Key` (the publishable key), `X-Larder-Event`, `X-Larder-Visitor`,
/// `X-Larder-Session`, `X-Larder-Journey`, `X-Larder-Revision`, `X-Larder-Bundle` (digest
/// text), `X-Larder-Context` (canonical JSON of the context object), `X-Larder-Created`
/// (ISO 8601 UTC with milliseconds), `X-Larder-Rollout` during a staged rollout
/// (`bucket=7; percent=30; side=new|previous`, ``RolloutAssignment``; absent without one), and
/// `Content-Type: application/octet-stream`.
///
/// Events of a batch are sent in order, one request each. A 2xx answer settles the event as
/// delivered; 400, 409, 413, 415, 422 and 431 settle it as refused for good (the event itself
/// is unacceptable, so it must not block the events behind it); any other answer or a transport
/// failure stops the batch there, and that event and the rest stay queued. Events settled
/// before the stop are not sent again; an endpoint can still deduplicate by `X-Larder-Event`,
/// since delivery is at least once.
public struct HTTPCaptureSink: CaptureSink {
    /// Where events are POSTed.
    public var endpoint: URL
    /// The app's publishable key, sent as `X-Larder-Key`.
    public var publishableKey: String
    /// How requests are sent.
    public var transport: any HTTPTransport
    /// How long one request may take.
    public var timeout: Duration

    /// - Parameters:
    ///   - endpoint: where events are POSTed.
    ///   - publishableKey: the app's publishable key.
    ///   - transport: how requests are sent, usually `platformTransport()`.
    ///   - timeout: how long one request may take.
    public init(endpoint: URL, publishableKey: String, transport: any HTTPTransport, timeout: Duration = .seconds(30)) {
        self.endpoint = endpoint
        self.publishableKey = publishableKey
        self.transport = transport
        self.timeout = timeout
    }

    /// Statuses that refuse one event for good: bad request, conflict (already recorded),
    /// too large, unsupported type, unprocessable, header fields too large.
    public static let refusedForGood: Set<Int> = [400, 409, 413, 415, 422, 431]

    /// POSTs each event in order until one can be neither delivered nor refused for good.
    /// - Parameter events: the batch to deliver.
    /// - Returns: the settled prefix; the error that stopped it has code
    ///   ``HostError/Code/unavailable`` (``HostError/status`` or ``HostError/transportError``
    ///   says why), refusals have code ``HostError/Code/refused``.
    public func deliver(_ events: [CaptureEvent]) async -> CaptureReceipt {
        var refused: [CaptureRefusal] = []
        for (index, event) in events.enumerated() {
            let response: HTTPResponse
            do {
                response = try await transport.send(request(for: event))
            } catch {
                let failure = HostError(
                    .unavailable, "could not deliver capture event '\(event.id)' to \(endpoint.absoluteString); it stays queued",
                    transportError: error)
                return CaptureReceipt(settled: index, refused: refused, error: failure)
            }
            if (200..<300).contains(response.status) { continue }
            if Self.refusedForGood.contains(response.status) {
                let reason = HostError(
                    .refused, "\(endpoint.absoluteString) refused capture event '\(event.id)' for good; it was dropped",
                    status: response.status)
                refused.append(CaptureRefusal(id: event.id, reason: reason))
                continue
            }
            let failure = HostError(
                .unavailable, "\(endpoint.absoluteString) did not take capture event '\(event.id)'; it stays queued",
                status: response.status)
            return CaptureReceipt(settled: index, refused: refused, error: failure)
        }
        return CaptureReceipt(settled: events.count, refused: refused)
    }

    /// The POST for one event.
    func request(for event: CaptureEvent) -> HTTPRequest {
        let context = event.contextJSON
        var headers = [
            "Content-Type": "application/octet-stream",
            "X-Larder-Key": publishableKey,
            "X-Larder-Event": event.id,
            "X-Larder-Visitor": event.visitor,
            "X-Larder-Session": event.session,
            "X-Larder-Journey": event.journey,
            "X-Larder-Revision": String(event.revision),
            "X-Larder-Bundle": event.bundle.description,
            "X-Larder-Context": String(decoding: context, as: UTF8.self),
            "X-Larder-Created": Self.timestamp(event.created),
        ]
        if let assignment = event.assignment {
            headers["X-Larder-Rollout"] = "bucket=\(assignment.bucket); percent=\(assignment.percent); side=\(assignment.side.rawValue)"
        }
        // The answer's body is never used: a small bound.
        return HTTPRequest(
            url: endpoint, headers: headers, timeout: timeout, method: "POST", body: Data(event.body), maximumBodyBytes: 64 << 10)
    }

    /// `date` as ISO 8601 in UTC to the nearest millisecond, for example
    /// `2023-11-14T22:13:20.123Z`.
    static func timestamp(_ date: Date) -> String {
        let scaled = (date.timeIntervalSince1970 * 1000).rounded()
        let milliseconds = scaled.isFinite ? Int64(min(max(scaled, -8.0e15), 8.0e15)) : 0
        let seconds = floorDivide(milliseconds, 1000)
        let days = floorDivide(seconds.quotient, 86_400)
        let (year, month, day) = civil(days: days.quotient)
        let second = days.remainder
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(second / 3600, 2)):\(pad(second / 60 % 60, 2)):"
            + "\(pad(second % 60, 2)).\(pad(seconds.remainder, 3))Z"
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = (value % divisor + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    private static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097).quotient
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
