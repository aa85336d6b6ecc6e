import LarderFormat

/// Which side of a staged rollout (`JourneyDocument.Rollout`) an identity is on: its bucket
/// (0–99, a stable hash of the journey and the identity's id), the rollout's percentage, and
/// whether that put it on the new bundle or the previous one. Carried by prepared and presented
/// results and by every capture, so an experiment's two sides can be told apart. Nil outside a
/// rollout (everyone gets the document's bundle) and for the embedded default.
public struct RolloutAssignment: Sendable, Hashable, Codable {
    /// The bundle an identity is assigned.
    public enum Side: String, Sendable, Hashable, Codable {
        /// The document's `JourneyDocument.bundle`: the bucket is below the percentage.
        case new
        /// The rollout's `JourneyDocument.Rollout.previous` bundle.
        case previous
    }

    /// 0–99.
    public var bucket: Int
    /// 1–99: the share of identities on the new bundle.
    public var percent: Int
    public var side: Side

    public init(bucket: Int, percent: Int, side: Side) {
        self.bucket = bucket
        self.percent = percent
        self.side = side
    }

    /// The decision: a bucket below the percentage gets the new bundle, the rest the previous.
    public static func decide(bucket: Int, percent: Int) -> RolloutAssignment {
        RolloutAssignment(bucket: bucket, percent: percent, side: bucket < percent ? .new : .previous)
    }

    /// The assignment of identity `id` in `document`; nil when the document has no rollout.
    public static func of(_ document: JourneyDocument, id: String) -> RolloutAssignment? {
        guard let rollout = document.rollout else { return nil }
        return decide(bucket: JourneyDocument.Rollout.bucket(journey: document.journey, id: id), percent: rollout.percent)
    }

    /// The bundle of `document` this side gets.
    public func bundle(of document: JourneyDocument) -> Digest {
        side == .new ? document.bundle : document.rollout?.previous ?? document.bundle
    }

    /// "bucket 7 of 10%: new bundle", for rows and timelines.
    public var summary: String { "bucket \(bucket) of \(percent)%: \(side.rawValue) bundle" }
}
