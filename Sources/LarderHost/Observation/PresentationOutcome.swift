import Foundation

/// How a presentation ended: what the content said, how the presentation was closed, and
/// whether the content asked for a purchase or a restore during it.
public enum PresentationOutcome: String, Sendable, Equatable, CaseIterable {
    /// The content reached the end of the flow: it sent `{"type":"complete"}`.
    case completed
    /// The content closed the flow before its end: it sent `{"type":"dismiss"}`.
    case dismissed
    /// The content asked the app to start a purchase (`purchase`) during the session, however
    /// the session then ended. Whether the store charged is the store's answer, not the host's.
    case purchased
    /// The content asked the app to restore purchases (`restore`) during the session, and no
    /// purchase; however the session then ended.
    case restored
    /// Another host of the process presented its flow (``PresentationCoordinator``).
    case replaced
    /// The presentation could not go on: the origin denied or removed the journey, or the
    /// renderer terminated.
    case failed
    /// The app ended it: ``JourneyHost/dismiss()``, a configuration change, a logout or
    /// ``JourneyHost/dispose()``.
    case endedByApp = "ended-by-app"
}

/// One ended presentation: its session, outcome and the last screen it showed.
public struct PresentationResult: Sendable, Equatable {
    public var session: PresentationSession
    public var outcome: PresentationOutcome
    /// The screen on show when it ended (the entry document's unless the content navigated).
    public var screen: JourneyScreen?
    /// When it ended.
    public var ended: Date

    public init(session: PresentationSession, outcome: PresentationOutcome, screen: JourneyScreen?, ended: Date) {
        self.session = session
        self.outcome = outcome
        self.screen = screen
        self.ended = ended
    }
}

/// A screen of the flow on show.
public struct JourneyScreen: Sendable, Equatable {
    /// What identifies it: the screen id or path a `navigate` message named, or the bundle's
    /// entry path for the first screen.
    public var id: String
    /// A readable name: the id's last path component without its extension
    /// (`"onboarding/screen-2.html"` → `"screen-2"`, `"plans"` → `"plans"`); the id itself
    /// when that leaves nothing.
    public var name: String

    public init(id: String) {
        self.id = id
        self.name = Self.name(of: id)
    }

    static func name(of id: String) -> String {
        let last = id.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? id
        var name = last
        if let dot = last.lastIndex(of: "."), dot != last.startIndex { name = String(last[..<dot]) }
        return name.isEmpty ? id : name
    }
}
