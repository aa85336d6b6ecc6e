import Foundation
import LarderFormat

/// A captured event: everything that attributes it is fixed when it is created and never
/// changes afterwards, even if it is delivered after a restart or an identity change.
public struct CaptureEvent: Sendable, Equatable {
    /// Unique per event; a second event with the same id is dropped.
    public var id: String
    /// Who it is attributed to (the identity at creation, or the anonymous visitor id).
    public var visitor: String
    /// The presentation session it belongs to.
    public var session: String
    public var journey: String
    /// The journey revision the user saw.
    public var revision: Int64
    /// The bundle the user saw.
    public var bundle: Digest
    /// App context at creation, as JSON values (for example `source: "upgrade_button"`,
    /// `cart: {"items": 3}`): the capture settings', the host-wide
    /// (``JourneyConfiguration/context``) and the presentation's, the later over the earlier.
    public var contextValues: [String: JSONValue]
    /// ``contextValues`` as strings: a string as it is, any other value as its canonical JSON
    /// text; setting it replaces every value with a string.
    public var context: [String: String] {
        get { contextValues.stringValues }
        set { contextValues = newValue.mapValues(JSONValue.string) }
    }
    /// The body as the content sent it, byte for byte.
    public var body: [UInt8]
    public var created: Date
    /// Which side of a staged rollout the presentation was on (nil without one): fixed, like
    /// the rest, when the event is created.
    public var assignment: RolloutAssignment?

    /// The context as canonical JSON (sorted keys, no whitespace), as it is stored and sent.
    var contextJSON: [UInt8] { JSONValue.object(contextValues).canonicalBytes }

    public init(
        id: String, visitor: String, session: String, journey: String, revision: Int64, bundle: Digest,
        context: [String: String], body: [UInt8], created: Date
    ) {
        self.id = id
        self.visitor = visitor
        self.session = session
        self.journey = journey
        self.revision = revision
        self.bundle = bundle
        self.contextValues = context.mapValues(JSONValue.string)
        self.body = body
        self.created = created
    }
}
