import Foundation
import LarderCache
import LarderFormat

/// A published revision of a journey, chosen by the app: by its number or by its bundle.
public enum JourneyVersion: Sendable, Hashable, CustomStringConvertible {
    /// The revision of this number.
    case revision(Int64)
    /// The newest revision that pointed the journey at this bundle.
    case bundle(Digest)

    public var description: String {
        switch self {
        case .revision(let revision): "revision \(revision)"
        case .bundle(let bundle): "bundle \(bundle)"
        }
    }
}

extension JourneyHost {
    /// Presents a chosen published revision of the journey in production: unlike a
    /// QA ``preview(bundle:context:)``, it needs the origin's authorisation of the key (the
    /// journey's document answered in this launch, fresh, or asked now), the revision must be
    /// one the origin published for the journey (the current document, or its history at
    /// `journeys/<id>.history.json`, asked with the key), and the session and every event it
    /// captures carry that revision and bundle.
    ///
    /// Outside the freshness rules otherwise: the stored record, ``status()`` and the prepared
    /// content stay as they were, and nothing of the bundle is kept for the scope beyond the
    /// session's own lease. It ends like any presentation (``waitForCompletion()``), and its
    /// dismissal restores the prepared state. Another open presentation of
    /// this host is dismissed first (replaced); one of another host, as
    /// ``present(context:preload:)`` does.
    /// - Parameters:
    ///   - version: the revision, by number or by bundle.
    ///   - context: this presentation's context, over the host-wide context.
    /// - Throws: ``HostError/Code/denied`` when the origin denies the key;
    ///   ``HostError/Code/unavailable`` or ``HostError/Code/backingOff`` when it cannot
    ///   authorise the key now; ``HostError/Code/revisionNotFound`` naming a revision the
    ///   origin did not publish for the journey; ``HostError/Code/rejected`` when trusted keys
    ///   are configured and the revision is not the signed document's (the history is not
    ///   signed); ``HostError/Code/incompatible``, ``HostError/Code/deadlineExceeded``.
    @discardableResult
    public func present(version: JourneyVersion, context: [String: JSONValue] = [:]) async throws(HostError) -> PresentationSession {
        try checkUsable()
        if case .presented(let open) = presentation {
            if !open.preview, stage.preview != nil, open.matches(version) { return open }
            await close(.replaced)
        }
        let deadline = clock.now.adding(configuration.presentationDeadline)
        guard
            let session = try await Deadline.run(
                clock: clock, until: deadline, { () async throws(HostError) in try await self.showVersion(version, context: context) })
        else {
            note(.deadline, "\(version) not ready within \(DurationText.describe(configuration.presentationDeadline))")
            throw HostError(.deadlineExceeded, "\(version) was not ready within \(DurationText.describe(configuration.presentationDeadline))")
        }
        return session
    }

    private func showVersion(_ version: JourneyVersion, context: [String: JSONValue]) async throws(HostError) -> PresentationSession {
        let document = try await authorisedDocument()
        let chosen = try await published(version, current: document)
        let source: ContentSource
        if try isComplete(chosen.bundle) {
            source = .cache
        } else {
            do {
                let result = try await origin.fetcher(for: configuration, cache: cache).fetch(chosen.bundle)
                note(.bundleFetched, "revision \(chosen.revision), bundle \(chosen.bundle.hex.prefix(12)): \(result.timelineDetail)")
            } catch {
                throw HostError(.unavailable, "cannot fetch the bundle of revision \(chosen.revision)", status: error.status, digest: chosen.bundle, transportError: error)
            }
            source = .network
        }
        var journey = PreparedJourney(
            journey: configuration.journeyID, revision: chosen.revision, bundle: chosen.bundle, source: source, renewed: nil, document: nil,
            stale: false, published: chosen.published)
        if chosen.revision == document.revision { journey.assignment = try assignment(document) }
        let session = try await showApart(journey, context: configuration.context.merging(context) { $1 }, preview: false)
        note(.presented, "session \(session.id): chosen revision \(chosen.revision) (bundle \(chosen.bundle.hex.prefix(12))) from \(source.rawValue)")
        recordPresentation(session)
        await claimScreen()
        return session
    }

    /// The journey's document as the origin authorises it for this key now: the stored one
    /// when the origin authorised it in this launch and it is still fresh, else asked now.
    private func authorisedDocument() async throws(HostError) -> JourneyDocument {
        let scope = configuration.scope
        let record = try trustedRecord(scope)
        if let cached = try cachedFlow(of: record), let document = cached.document, lifecycle.isAuthorised(scope),
            let decision = freshness(of: cached), decision != .requiresFetch
        {
            return document
        }
        switch await live(configuration, generation: lifecycle.generation) {
        case .authorised(let document, _, _):
            return document
        case .denied(let status):
            throw HostError(.denied, "the origin denied journey '\(configuration.journeyID)'", status: status)
        case .failed(let error):
            var failure = error
            failure.message += "; a chosen revision is shown only once the origin authorises the key"
            throw failure
        }
    }

    /// The published revision `version` names: the current document's, else one of the
    /// journey's history.
    private func published(_ version: JourneyVersion, current document: JourneyDocument) async throws(HostError) -> PublishedRevisions.Entry {
        let assigned = try assignedBundle(document)
        switch version {
        case .revision(let revision) where revision == document.revision:
            return PublishedRevisions.Entry(revision: revision, bundle: assigned, published: document.published)
        case .bundle(let bundle) where bundle == assigned || bundle == document.bundle:
            return PublishedRevisions.Entry(revision: document.revision, bundle: bundle, published: document.published)
        default:
            break
        }
        if trust.isEnforced {
            throw HostError(
                .rejected,
                "\(version) of journey '\(configuration.journeyID)' is not the signed document's revision \(document.revision): with trusted keys only a signed revision is shown (the history is not signed)")
        }
        let history = try await PublishedRevisions.fetch(configuration, transport: origin.transport, timeout: configuration.fetchDeadline)
        guard let entry = history.entry(for: version) else {
            throw HostError(
                .revisionNotFound,
                "the origin published no \(version) for journey '\(configuration.journeyID)' (current: revision \(document.revision))")
        }
        return entry
    }
}

extension PresentationSession {
    /// Whether this session shows `version`.
    func matches(_ version: JourneyVersion) -> Bool {
        switch version {
        case .revision(let revision): self.revision == revision
        case .bundle(let bundle): self.bundle == bundle
        }
    }
}
