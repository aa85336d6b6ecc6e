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

/// The bridge's admission rule as a pure state machine: each message is one ``admit(bytes:now:)``
/// returning a verdict, each presentation boundary one ``beginPeriod(now:)``. Its owner
/// (``RendererBridge``) keeps it behind a lock and delivers what it admits.
struct BridgeAdmission: Sendable, Equatable {
    enum Verdict: Sendable, Equatable {
        case admit
        case tooLarge
        case overRate
    }

    let limits: BridgeLimits
    /// Messages that may still arrive before the rate limit applies (fractions accrue).
    private(set) var tokens: Double
    /// When ``tokens`` was last topped up; nil before the first message of a period.
    private(set) var refilled: Date?
    /// This period's counts, and every period's before it.
    private(set) var period = BridgeCounts()
    private(set) var earlier = BridgeCounts()

    init(limits: BridgeLimits) {
        self.limits = limits
        tokens = Double(limits.burst)
    }

    /// Counts since the bridge was made.
    var total: BridgeCounts { earlier + period }

    /// Decides on one message of `bytes` bytes arriving at `now`: too large (refused, no token
    /// taken), over the rate (refused) or admitted (a token taken). The clock going back never
    /// adds tokens.
    /// - Complexity: O(1).
    mutating func admit(bytes: Int, now: Date) -> Verdict {
        if let refilled {
            let elapsed = max(0, now.timeIntervalSince(refilled))
            tokens = min(Double(limits.burst), tokens + elapsed * Double(limits.perSecond))
            if now > refilled { self.refilled = now }
        } else {
            refilled = now
        }
        guard bytes <= limits.maximumMessageBytes else {
            period.tooLarge += 1
            return .tooLarge
        }
        guard tokens >= 1 else {
            period.overRate += 1
            return .overRate
        }
        tokens -= 1
        period.accepted += 1
        return .admit
    }

    /// Counts a message that was admitted but does not parse: it took its token.
    mutating func countMalformed() {
        period.accepted -= 1
        period.malformed += 1
    }

    /// Ends the current period (a presentation began or ended) and starts the next with a full
    /// burst. Returns the counts of the period that ended.
    /// - Complexity: O(1).
    mutating func beginPeriod() -> BridgeCounts {
        let ended = period
        earlier = earlier + period
        period = BridgeCounts()
        tokens = Double(limits.burst)
        refilled = nil
        return ended
    }
}
