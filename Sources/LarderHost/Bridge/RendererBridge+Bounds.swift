import Foundation
import LarderFormat

/// The renderer bridge's bounds (``BridgeLimits``): a message is admitted or refused on the
/// renderer's thread, before anything is queued for the host, so a page posting in a loop
/// costs a counter, never a timeline entry, a queued message or a parse per message.
extension RendererBridge {
    /// A message the content posted, as its JSON bytes: refused when larger than
    /// ``BridgeLimits/maximumMessageBytes`` (before it is parsed) or past the rate limit, or
    /// when malformed; otherwise parsed and passed on. Every refusal is counted.
    /// - Parameter json: the message as the content sent it (``BridgeMessage/init(json:)``).
    /// - Returns: the message passed on.
    /// - Throws: ``HostError/Code/limitExceeded`` for a message past the bounds,
    ///   ``HostError/Code/malformedDocument`` for a malformed one: the text for the page.
    @discardableResult
    public func receive(_ json: [UInt8]) throws(HostError) -> BridgeMessage {
        if let refusal = admit(bytes: json.count) { throw refusal }
        let message: BridgeMessage
        do { message = try BridgeMessage(json: json) } catch {
            admission.withLock { $0.countMalformed() }
            throw error
        }
        deliver(message)
        return message
    }

    /// Counts since the bridge was made.
    public var counts: BridgeCounts { admission.withLock { $0.total } }

    /// Ends the current counting period and starts the next with a full burst: each
    /// presentation, and the hidden time between presentations, has its own rate limit.
    /// - Returns: the counts of the period that ended.
    func beginPeriod() -> BridgeCounts { admission.withLock { $0.beginPeriod() } }

    /// Admits a message of `bytes` bytes now, or returns the error refusing it.
    func admit(bytes: Int) -> HostError? {
        let now = clock.now
        switch admission.withLock({ $0.admit(bytes: bytes, now: now) }) {
        case .admit:
            return nil
        case .tooLarge:
            return HostError(
                .limitExceeded, "the bridge message has \(bytes) bytes; at most \(limits.maximumMessageBytes) are accepted")
        case .overRate:
            return HostError(
                .limitExceeded,
                "more than \(limits.burst) bridge messages at once, or \(limits.perSecond) a second, in one presentation: refused")
        }
    }
}

extension BridgeCounts {
    /// One line for the timeline: how many of the messages posted were refused, and why.
    func refusalSummary(_ limits: BridgeLimits) -> String {
        var reasons: [String] = []
        if overRate > 0 { reasons.append("\(overRate) past the rate limit (\(limits.burst) at once, then \(limits.perSecond) a second)") }
        if tooLarge > 0 { reasons.append("\(tooLarge) over \(limits.maximumMessageBytes) bytes") }
        if malformed > 0 { reasons.append("\(malformed) malformed") }
        return "\(refused) of \(posted) bridge messages refused: " + reasons.joined(separator: ", ")
    }
}
