import Foundation

/// The bridge's admission rule as a pure state machine: each message is one ``admit(bytes:now:)``
/// returning a verdict, each presentation boundary one ``beginPeriod()``. Its owner
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

    /// Counts a message that was admitted but does not parse: it took its token. It was
    /// admitted in this period or, when a period began meanwhile, in the one before.
    mutating func countMalformed() {
        if period.accepted > 0 {
            period.accepted -= 1
            period.malformed += 1
        } else {
            earlier.accepted -= 1
            earlier.malformed += 1
        }
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
