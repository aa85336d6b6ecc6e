import LarderFormat

/// Tells a service that gives a journey's files a new validator (ETag) on every read from
/// another publisher writing them: when a conditional write lost and the next reads find
/// the same bytes under new validators each time, no publisher changed anything, and no
/// `If-Match` can ever hold (a caching proxy or gateway that makes up ETags, a service that
/// does not keep them). Fed every read of a retry loop, in order.
struct ValidatorWatch {
    /// Reads in a row that found the same bytes under new validators, after which the service
    /// is taken not to keep them (a real publisher writes a new revision: other bytes).
    static let limit = 2

    private var last: JourneyState?
    private var unchangedReads = 0

    /// Takes the next read of a journey's files.
    /// - Throws: ``PublishError/Code/unstableValidator`` naming the file whose validator keeps
    ///   changing, on the ``limit``th read in a row of the same bytes under a new validator.
    mutating func observe(_ state: JourneyState, journey: String, on target: some PublishTarget) throws(PublishError) {
        defer { last = state }
        guard let last, last.document == state.document, last.history == state.history else {
            unchangedReads = 0
            return
        }
        let documentMoved = last.documentValidator != state.documentValidator
        let historyMoved = last.historyValidator != state.historyValidator
        guard documentMoved || historyMoved else {
            unchangedReads = 0
            return
        }
        unchangedReads += 1
        guard unchangedReads >= Self.limit else { return }
        let path = documentMoved ? JourneyState.documentPath(journey) : JourneyHistory.path(journey: journey)
        let moved = documentMoved ? (last.documentValidator, state.documentValidator) : (last.historyValidator, state.historyValidator)
        throw PublishError(
            .unstableValidator,
            "the service gave this file a new ETag on each of \(Self.limit + 1) reads (\(moved.0 ?? "none"), then \(moved.1 ?? "none")) while its bytes stayed the same, so a conditional write (If-Match) can never succeed; no other publisher is changing journey '\(journey)': the service, or a proxy or gateway in front of it, does not keep ETags as S3 does (check --endpoint)",
            path: target.name + "/" + path)
    }
}
