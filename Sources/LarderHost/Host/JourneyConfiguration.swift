import Foundation
import LarderFetch
import LarderFormat
import LarderTransport

/// Who a journey's answers are attributed to. It never grants access: the publishable key
/// does.
public struct JourneyIdentity: Sendable, Hashable {
    /// The app's id for the signed-in person.
    public var externalID: String

    public init(externalID: String) { self.externalID = externalID }
}

/// How captured events are handled. Capture is on by default; a nil ``JourneyConfiguration/capture``
/// turns it off.
public struct CaptureSettings: Sendable, Equatable {
    /// Context attached to every event when it is created, for attribution only (the content
    /// does not read it); the host-wide context (``JourneyConfiguration/context``) and a
    /// presentation's own (``JourneyHost/present(context:preload:)``) go over it.
    public var context: [String: String]
    /// Where events are posted; nil means `<origin>/capture`.
    public var endpoint: URL?
    /// Events per delivery batch.
    public var batchSize: Int

    public init(context: [String: String] = [:], endpoint: URL? = nil, batchSize: Int = 50) {
        self.context = context
        self.endpoint = endpoint
        self.batchSize = batchSize
    }
}

/// What a ``JourneyHost`` shows and for whom.
public struct JourneyConfiguration: Sendable, Equatable {
    /// The publishable key: it authorises displaying the journey.
    public var publishableKey: String
    public var journeyID: String
    /// Attribution only.
    public var identity: JourneyIdentity?
    /// The base URL the origin layout (`larder publish`) is served under.
    public var origin: URL
    /// A staging origin that replaces ``origin`` for every request (and in the scope) in a
    /// debug build, to try unreleased content against the app's real configuration. Setting it
    /// in a release build stops the program (a precondition), so a staging URL never ships.
    public var debugOrigin: URL? {
        didSet { Self.requireDebugBuild(for: debugOrigin) }
    }
    /// Where requests go: ``debugOrigin`` when set, else ``origin``.
    public var requestOrigin: URL { debugOrigin ?? origin }
    /// Capture settings; nil turns capture off.
    public var capture: CaptureSettings?
    /// A bundle archive shipped with the app, shown when nothing else can be.
    public var embeddedDefault: String?
    /// The hard deadline of a live fetch (configuration and bundle) when resolving a flow.
    public var fetchDeadline: Duration
    /// How long a presentation may take to become ready.
    public var presentationDeadline: Duration
    /// How long a presentation waits after the app returned to the foreground
    /// (``JourneyHost/setForeground(_:)``) before it appears, so it does not cover the app
    /// while the user is still finding their place: 0.5 s by default, clamped to 0…999 ms
    ///.
    public var foregroundGrace: Duration = .milliseconds(500)
    /// The limits of bundle downloads, which may go on in the background past
    /// ``fetchDeadline``.
    public var download: BundleFetcher.Configuration
    /// Publisher keys whose signed journey documents this host accepts (several during a
    /// rotation). Empty: documents are not checked. Otherwise a document is accepted only if
    /// one of them signed it, it names this journey, it has not expired and its revision is not
    /// below the highest this scope accepted; a refused document changes nothing cached.
    public var trustedKeys: [PublicKey]
    /// What a confirmed 404 does to cached content.
    public var removedJourney: RemovedJourneyPolicy
    /// What a new launch shows before the origin answered in it: ask first (the default),
    /// the cache first, or nothing without fresh authorisation.
    public var startup: StartupPolicy = .askOriginFirst
    /// How old downloaded content may be and still serve a new presentation the origin could
    /// not answer for: the last good version at any age (the default), or
    /// at most an age (``StaleContentPolicy/strict``: 30 minutes).
    public var staleContent: StaleContentPolicy = .lastGoodVersion
    /// The host-wide context, as JSON values: every presentation
    /// gets it under its own (``JourneyHost/present(contextValues:preload:)``, the
    /// presentation's value wins for a key in both); the content reads the merged object as
    /// `window.larder.context`, and every event captured in the presentation carries it, fixed
    /// when the event is created.
    public var context: [String: JSONValue] = [:]
    /// Whether content is loaded into the renderer hidden, ahead of a presentation, so that it
    /// appears at once: on by default (when the renderer and the
    /// bundle support it). Off: direct presentation, the renderer loads
    /// the content only when it is shown (lazy), and preparation reports its progress done as
    /// soon as the bundle is in the cache. A presentation may choose otherwise
    /// (``JourneyHost/present(contextValues:preload:)``).
    public var preload = true

    public init(
        publishableKey: String, journeyID: String, identity: JourneyIdentity? = nil, origin: URL,
        capture: CaptureSettings? = CaptureSettings(), embeddedDefault: String? = nil,
        fetchDeadline: Duration = .seconds(5), presentationDeadline: Duration = .seconds(15),
        download: BundleFetcher.Configuration = .patching, removedJourney: RemovedJourneyPolicy = .discard,
        trustedKeys: [PublicKey] = []
    ) {
        self.publishableKey = publishableKey
        self.journeyID = journeyID
        self.identity = identity
        self.origin = origin
        self.capture = capture
        self.embeddedDefault = embeddedDefault
        self.fetchDeadline = fetchDeadline
        self.presentationDeadline = presentationDeadline
        self.download = download
        self.trustedKeys = trustedKeys
        self.removedJourney = removedJourney
    }

    /// The scope content is prepared and authorised for: key, journey, identity and the
    /// origin requests go to (``requestOrigin``). Any change to them invalidates prepared
    /// content.
    public var scope: String {
        let text = [publishableKey, journeyID, identity?.externalID ?? "", requestOrigin.absoluteString].map {
            "\($0.utf8.count):\($0)"
        }.joined()
        return "journey-" + SHA256Hasher.hash(Array(text.utf8)).hex.prefix(32)
    }

    /// The URL of the journey's configuration document.
    public var documentURL: URL { requestOrigin.appendingPathComponent("journeys/\(journeyID).json") }

    /// Whether this is a debug build of LarderHost (`DEBUG` defined).
    static var isDebugBuild: Bool {
        #if DEBUG
            true
        #else
            false
        #endif
    }

    /// Stops the program when a debug origin is set in a release build (``debugOrigin``).
    package static func requireDebugBuild(for debugOrigin: URL?, debugBuild: Bool = isDebugBuild) {
        guard let debugOrigin, !debugBuild else { return }
        preconditionFailure("JourneyConfiguration.debugOrigin (\(debugOrigin.absoluteString)) is set in a release build: it is for debug builds only")
    }
}
