import Foundation

/// The bounds on what journey content may post over the renderer bridge.
///
/// A message larger than ``maximumMessageBytes`` (its JSON form) is refused. Messages are
/// admitted at ``burst`` at once and then ``perSecond`` a second (a token bucket), counted
/// afresh for each presentation and for the hidden time between presentations; the rest are
/// refused. Refused messages are counted (``BridgeCounts``), never delivered, never logged one
/// by one: a page posting in a loop costs the host a counter.
public struct BridgeLimits: Sendable, Equatable {
    /// The largest message accepted, in bytes of JSON.
    public var maximumMessageBytes: Int
    /// How many messages may arrive at once.
    public var burst: Int
    /// How many messages a second may follow, once the burst is spent.
    public var perSecond: Int

    /// - Parameters:
    ///   - maximumMessageBytes: 64 KiB by default: a capture body, a custom payload.
    ///   - burst: 100 messages by default.
    ///   - perSecond: 20 by default, far more than a person's taps produce.
    public init(maximumMessageBytes: Int = 64 << 10, burst: Int = 100, perSecond: Int = 20) {
        self.maximumMessageBytes = maximumMessageBytes
        self.burst = burst
        self.perSecond = perSecond
    }
}

/// How many messages content posted over the bridge, and why those refused were.
public struct BridgeCounts: Sendable, Equatable {
    /// Messages delivered to the host.
    public var accepted = 0
    /// Messages over ``BridgeLimits/maximumMessageBytes``.
    public var tooLarge = 0
    /// Messages past the rate limit.
    public var overRate = 0
    /// Messages that were not well-formed (``BridgeMessage/init(json:)``).
    public var malformed = 0

    public init(accepted: Int = 0, tooLarge: Int = 0, overRate: Int = 0, malformed: Int = 0) {
        self.accepted = accepted
        self.tooLarge = tooLarge
        self.overRate = overRate
        self.malformed = malformed
    }

    /// Every message refused, for whatever reason.
    public var refused: Int { tooLarge + overRate + malformed }

    /// Every message posted.
    public var posted: Int { accepted + refused }

    static func + (left: BridgeCounts, right: BridgeCounts) -> BridgeCounts {
        BridgeCounts(
            accepted: left.accepted + right.accepted, tooLarge: left.tooLarge + right.tooLarge,
            overRate: left.overRate + right.overRate, malformed: left.malformed + right.malformed)
    }
}
