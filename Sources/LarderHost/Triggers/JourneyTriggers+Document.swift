import Foundation
import LarderFormat

/// The triggers document as the router uses it: from its storage at once when it has one
/// (offline too), revalidated behind the answer once older than 10 minutes; asked for first
/// when there is none, within the fetch deadline. The same trust as a journey's document
/// (``DocumentTrust``): with trusted keys, only a document one of them signed, unexpired and
/// not below the highest revision accepted, checked when fetched and at every use.
extension JourneyTriggers {
    /// How long an answer about the triggers stands before the router asks again (behind the
    /// answer it gives meanwhile).
    static let refreshInterval = FreshnessPolicy.minimumRefreshInterval

    /// The triggers document to decide with.
    enum Loaded: Sendable, Equatable {
        case document(TriggerDocument)
        /// The origin publishes no triggers (404).
        case none
        /// The origin denied the key (401, 403).
        case denied(status: Int)
        /// No document known, and the origin cannot be asked now.
        case unavailable
    }

    /// The scope of the triggers document: the key and the origin requests go to.
    var scope: String {
        let text = [configuration.publishableKey, configuration.requestOrigin.absoluteString].map { "\($0.utf8.count):\($0)" }.joined()
        return "triggers-" + SHA256Hasher.hash(Array(text.utf8)).hex.prefix(32)
    }

    /// The document to decide with now (``TriggerDocumentRule``).
    func triggersDocument() async throws(HostError) -> Loaded {
        let record = try trustedRecord()
        switch TriggerDocumentRule.opening(record, now: clock.now, refreshInterval: Self.refreshInterval) {
        case .serve(let revalidate):
            if revalidate { startRevalidation() }
        case .ask:
            let deadline = clock.now.adding(configuration.fetchDeadline)
            _ = try await Deadline.run(clock: clock, until: deadline) { () async throws(HostError) -> HostError? in await self.revalidate() }
        }
        return try Self.loaded(trustedRecord())
    }

    /// What a record says to decide with.
    static func loaded(_ record: TriggerRecord) -> Loaded {
        if let document = record.document { return .document(document) }
        if let status = record.deniedStatus { return .denied(status: status) }
        return record.renewed == nil ? .unavailable : .none
    }

    /// Asks the origin for the triggers document now (a pull to refresh, a new publication),
    /// subject to the backoff of earlier failures.
    /// - Returns: why it failed (unreachable, refused by the trusted keys, denied, backing off);
    ///   nil when the origin answered.
    public func refreshTriggers() async -> HostError? {
        guard !isDisposed else { return HostError(.disposed, "the trigger router was disposed") }
        return await revalidate()
    }

    /// The triggers in use: the stored document, when the trusted keys still accept it.
    public func currentTriggers() throws(HostError) -> TriggerDocument? {
        try trustedRecord().document
    }

    private func startRevalidation() {
        guard revalidationTask == nil else { return }
        keepRevalidation(Task { await self.performRevalidation() })
    }

    /// One request for the triggers at a time; concurrent callers share its outcome.
    func revalidate() async -> HostError? {
        if let running = revalidationTask { return await running.value }
        let task = Task { await self.performRevalidation() }
        keepRevalidation(task)
        return await task.value
    }

    private func performRevalidation() async -> HostError? {
        defer { revalidationFinished() }
        var record: TriggerRecord
        do { record = try trustedRecord() } catch { return error }
        let now = clock.now
        if let notBefore = record.notBefore, now < notBefore {
            return HostError(.backingOff, "the triggers may be asked for again at \(notBefore.formatted(.iso8601))")
        }
        let answer = await TriggerClient(transport: transport, clock: clock).fetch(
            configuration, etag: record.document == nil ? nil : record.etag, timeout: configuration.fetchDeadline)
        let answered = clock.now
        do {
            switch answer {
            case .fetched(let document, let etag):
                if let refusal = trust.refusal(of: document, now: answered, highestAccepted: record.highest) {
                    return try fail(&record, HostError(.rejected, "the triggers document revision \(document.revision) was refused: \(refusal)"), retryAfter: nil)
                }
                if trust.isEnforced { rememberVerified(document) }
                record = TriggerRecord(document: document, etag: etag, renewed: answered, highest: max(record.highest ?? document.revision, document.revision))
            case .notModified:
                record.renewed = answered
                record.failures = 0
                record.notBefore = nil
                record.deniedStatus = nil
            case .denied(let status):
                record = TriggerRecord(renewed: answered, deniedStatus: status, highest: record.highest)
            case .notFound:
                record = TriggerRecord(renewed: answered, highest: record.highest)
            case .failed(let error, let retryAfter):
                return try fail(&record, error, retryAfter: retryAfter)
            }
            try store.save(record, for: scope)
            return nil
        } catch {
            return error
        }
    }

    private func fail(_ record: inout TriggerRecord, _ error: HostError, retryAfter: Duration?) throws(HostError) -> HostError {
        record.failures += 1
        record.notBefore = clock.now.adding(Backoff.delay(failures: record.failures, retryAfter: retryAfter))
        try store.save(record, for: scope)
        return error
    }

    var trust: DocumentTrust { DocumentTrust(keys: configuration.trustedKeys) }

    /// The stored record, without its document when the trusted keys do not accept it now
    /// (unsigned, unknown key, expired, rolled back): the router then asks again, without a
    /// validator.
    func trustedRecord() throws(HostError) -> TriggerRecord {
        var record = try store.record(scope)
        guard let document = record.document, trust.isEnforced else { return record }
        let remembered = verified.map { $0.document == document && $0.keys == trust.keys } ?? false
        if trust.refusal(of: document, now: clock.now, highestAccepted: record.highest, signatureVerified: remembered) != nil {
            record.document = nil
            record.etag = nil
            record.renewed = nil
        } else if !remembered {
            rememberVerified(document)
        }
        return record
    }
}

/// When the router asks the origin for its triggers: a pure decision over the stored record
/// and the time.
enum TriggerDocumentRule {
    enum Opening: Sendable, Equatable {
        /// Decide with what is stored; `revalidate`: ask the origin behind the answer.
        case serve(revalidate: Bool)
        /// Nothing stored yet: ask first, within the fetch deadline.
        case ask
    }

    /// - Parameters:
    ///   - record: the stored record, trusted (``JourneyTriggers/trustedRecord()``).
    ///   - refreshInterval: how long an answer stands.
    static func opening(_ record: TriggerRecord, now: Date, refreshInterval: Duration) -> Opening {
        guard let renewed = record.renewed else {
            // Never answered (or its document no longer trusted): ask, unless a backoff is on.
            if let notBefore = record.notBefore, now < notBefore { return .serve(revalidate: false) }
            return .ask
        }
        let due = now >= renewed.adding(refreshInterval)
        let backingOff = record.notBefore.map { now < $0 } ?? false
        return .serve(revalidate: due && !backingOff)
    }
}
