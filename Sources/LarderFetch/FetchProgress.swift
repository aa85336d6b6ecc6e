/// How far a fetch has come, as ``BundleFetcher/fetch(_:reporting:)`` reports it: the bytes of
/// the bundle received so far and in all, so a progress display can show a rate and the time
/// left, not only a fraction.
public struct FetchProgress: Sendable, Equatable {
    /// Bytes received so far: of the archive, or of the objects the cache lacked.
    public let receivedBytes: Int64
    /// Bytes to receive in all; 0 while unknown.
    public let expectedBytes: Int64
    /// Whether the bundle is in the cache: installed, or there already.
    public let isComplete: Bool

    public init(receivedBytes: Int64, expectedBytes: Int64, isComplete: Bool = false) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.isComplete = isComplete
    }

    /// From 0 to 1: the share of the bytes received, at most 0.99 until the bundle is in the
    /// cache, then 1.
    public var fraction: Double {
        if isComplete { return 1 }
        guard expectedBytes > 0 else { return 0 }
        return min(0.99, Double(receivedBytes) / Double(expectedBytes))
    }

    /// The bundle in the cache, after `receivedBytes` of `expectedBytes`.
    static func complete(_ received: Int64 = 0, of expected: Int64 = 0) -> FetchProgress {
        FetchProgress(receivedBytes: received, expectedBytes: expected, isComplete: true)
    }
}
