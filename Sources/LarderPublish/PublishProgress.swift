import LarderSystem

/// How far a publish is in writing to its origin: the bytes of the objects, patches, archives
/// and manifests handed to the target so far (those already there counted too), of all it
/// will hand. Reported through the `progress` parameter of ``OriginPublisher``'s publish and
/// upload entry points, after each file.
public struct PublishProgress: Sendable, Equatable {
    /// Bytes written (or found already there) so far.
    public var bytes: Int64
    /// Every byte this publish will write; for archives sent to a bucket it grows as each
    /// archive is laid out.
    public var totalBytes: Int64

    public init(bytes: Int64, totalBytes: Int64) {
        self.bytes = bytes
        self.totalBytes = totalBytes
    }
}

/// Adds up the bytes written from any thread and reports each new sum, in order, to a
/// publish's progress callback; nil when there is no callback.
final class PublishProgressCounter: Sendable {
    private let state = Locked(PublishProgress(bytes: 0, totalBytes: 0))
    private let report: @Sendable (PublishProgress) -> Void

    init?(_ report: (@Sendable (PublishProgress) -> Void)?) {
        guard let report else { return nil }
        self.report = report
    }

    /// Counts bytes still to write.
    func expect(_ bytes: Int64) {
        state.withLock { $0.totalBytes += bytes }
    }

    /// Counts `bytes` written and reports the sum (under the lock, so reports never go back).
    func advance(by bytes: Int64) {
        state.withLock { progress in
            progress.bytes += bytes
            report(progress)
        }
    }
}
