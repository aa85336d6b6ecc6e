import Foundation
import LarderCache
import Testing
@testable import LarderHost

/// ``PresentationStage`` as tables: each row brings the stage to a state through its events,
/// ends or changes it with one more, and asserts what the event returned (the leases to
/// release, the renderer calls, the outcome, the follow-ups) and what the stage holds after.
/// Real leases on a scratch cache (``StageFixture``); no host, no renderer, no polling.
@Suite("Presentation stage")
struct PresentationStageTests {
    /// The renderer calls of an action, by name (`reset` whatever lease it keeps).
    static func calls(_ action: PresentationStage.Action) -> [String] {
        action.renderer.map {
            switch $0 {
            case .unload: "unload"
            case .reset: "reset"
            case .loadHidden: "loadHidden"
            }
        }
    }

    /// The names of the leases an action releases, given each name's lease.
    static func released(_ action: PresentationStage.Action, _ names: [String: BundleLease]) -> [String] {
        action.release.map { lease in names.first { $0.value === lease }?.key ?? "unknown" }
    }

    struct Dismissal: Sendable, CustomTestStringConvertible {
        var name: String
        var preparedPreloaded = true
        /// A revision staged while open: nil for none, else whether it is presented prepared.
        var staged: Bool?
        /// The prepared content was dropped while shown (another embedded default).
        var dropped = false
        var renderer: [String]
        var then: [PresentationStage.FollowUp] = [.publishReadiness, .deliverCaptures]
        var released: [String] = []
        /// What is prepared afterwards: `shown`, `staged` or nil.
        var preparedAfter: String?
        var testDescription: String { name }
    }

    @Test("A dismissal ends the session and shows what comes next (DismissalRule)", arguments: [
        Dismissal(name: "prepared presentation: the renderer resets, hidden, still holding it", renderer: ["reset"], preparedAfter: "shown"),
        Dismissal(name: "direct presentation: the renderer unloads", preparedPreloaded: false, renderer: ["unload"], preparedAfter: "shown"),
        Dismissal(
            name: "a revision staged while open is loaded hidden; the shown one goes", staged: true, renderer: ["loadHidden"],
            released: ["shown"], preparedAfter: "staged"),
        Dismissal(
            name: "a staged revision for direct presentation: the renderer unloads", staged: false, renderer: ["unload"],
            released: ["shown"], preparedAfter: "staged"),
        Dismissal(
            name: "content invalidated while shown: unloaded, prepared afresh", dropped: true, renderer: ["unload"],
            then: [.prepareAfresh, .publishReadiness, .deliverCaptures], released: ["shown"], preparedAfter: nil),
    ])
    func dismissal(_ row: Dismissal) throws {
        let fixture = try StageFixture()
        var stage = PresentationStage()
        let shown = try fixture.content(0, preloaded: row.preparedPreloaded, loaded: row.preparedPreloaded)
        let staged = try fixture.content(1, revision: 2, preloaded: row.staged ?? false)
        #expect(stage.prepared(shown) == .none)
        let session = fixture.session("s1", for: shown)
        #expect(stage.opened(session, context: ["placement": "home"], entry: "index.html") == .init(then: [.publishScreen(JourneyScreen(id: "index.html"))]))
        #expect(stage.presentation == .presented(session) && stage.presented == shown && stage.sessionContext == ["placement": "home"])
        if row.staged != nil { #expect(stage.staged(staged) == .none) }
        if row.dropped { #expect(stage.droppedPrepared() == .none, "still shown: nothing released yet") }

        let action = stage.ended(.dismissed(.app))

        #expect(action.ended == .init(session: session, exit: .dismissed(.app), outcome: .endedByApp, screen: JourneyScreen(id: "index.html")))
        #expect(action.ended?.endsBridgePeriod == true)
        #expect(Self.calls(action) == row.renderer)
        if case .reset(let kept)? = action.renderer.first { #expect(kept === shown.lease) }
        #expect(action.then == row.then)
        #expect(Self.released(action, ["shown": shown.lease, "staged": staged.lease]) == row.released)
        let expectedPrepared = ["shown": shown.lease, "staged": staged.lease][row.preparedAfter ?? ""]
        #expect(stage.prepared?.lease === expectedPrepared)
        #expect(stage.presentation == .hidden && stage.presented == nil && stage.staged == nil && stage.screen == nil)
        #expect(stage.sessionContext.isEmpty)
        #expect(stage.ended(.dismissed(.app)) == .none, "one ending per session")
    }

    @Test("After the reset the renderer still holds the prepared content, unless it changed meanwhile")
    func resetFinished() throws {
        let fixture = try StageFixture()
        var stage = PresentationStage()
        let shown = try fixture.content(0)
        _ = stage.prepared(shown)
        _ = stage.opened(fixture.session("s1", for: shown), context: [:], entry: "index.html")
        #expect(Self.calls(stage.ended(.dismissed(.replaced))) == ["reset"])
        stage.resetFinished(keeping: shown.lease)
        #expect(stage.prepared?.loaded == true)
        _ = stage.prepared(try fixture.content(1, revision: 2, loaded: true))
        stage.resetFinished(keeping: shown.lease)
        #expect(stage.prepared?.loaded == false)
    }

    struct PreviewDismissal: Sendable, CustomTestStringConvertible {
        var name: String
        /// The prepared content: nil for none, else whether it is presented prepared.
        var prepared: Bool?
        var staged: Bool?
        var renderer: [String]
        var released: [String]
        var preparedAfter: String?
        var testDescription: String { name }
    }

    @Test("A preview's dismissal restores the prepared state (PreviewRule)", arguments: [
        PreviewDismissal(
            name: "prepared hidden: loaded again", prepared: true, renderer: ["unload", "loadHidden"], released: ["preview"],
            preparedAfter: "prepared"),
        PreviewDismissal(
            name: "prepared for direct presentation: left unloaded", prepared: false, renderer: ["unload"], released: ["preview"],
            preparedAfter: "prepared"),
        PreviewDismissal(name: "nothing prepared", renderer: ["unload"], released: ["preview"]),
        PreviewDismissal(
            name: "a revision staged meanwhile is prepared and loaded", prepared: true, staged: true, renderer: ["unload", "loadHidden"],
            released: ["preview", "prepared"], preparedAfter: "staged"),
        PreviewDismissal(
            name: "a staged revision for direct presentation", prepared: true, staged: false, renderer: ["unload"],
            released: ["preview", "prepared"], preparedAfter: "staged"),
    ])
    func previewDismissal(_ row: PreviewDismissal) throws {
        let fixture = try StageFixture()
        var stage = PresentationStage()
        let prepared = try fixture.content(0, preloaded: row.prepared ?? true, loaded: row.prepared ?? false)
        let staged = try fixture.content(0, revision: 2, preloaded: row.staged ?? false)
        let preview = try fixture.content(1, revision: 0, preloaded: false)
        if row.prepared != nil { _ = stage.prepared(prepared) }
        #expect(stage.previewLoading(preview) == .none)
        #expect(stage.prepared?.loaded != true, "the preview takes the renderer")
        let session = fixture.session("p1", for: preview, preview: true)
        _ = stage.opened(session, context: ["larder:preview": "true"], entry: "index.html")
        #expect(stage.presented == nil && stage.preview == preview)
        if row.staged != nil { _ = stage.staged(staged) }

        let action = stage.ended(.dismissed(.app))

        #expect(action.ended?.session == session && action.ended?.outcome == .endedByApp)
        #expect(Self.calls(action) == row.renderer)
        #expect(action.then == [.publishReadiness, .deliverCaptures])
        #expect(Self.released(action, ["preview": preview.lease, "prepared": prepared.lease, "staged": staged.lease]) == row.released)
        let expectedPrepared = ["prepared": prepared.lease, "staged": staged.lease][row.preparedAfter ?? ""]
        #expect(stage.prepared?.lease === expectedPrepared)
        #expect(stage.preview == nil && stage.presentation == .hidden)
    }

    struct Ending: Sendable, CustomTestStringConvertible {
        var name: String
        var exit: PresentationStage.Exit
        var preview = false
        var purchase = false
        var outcome: PresentationOutcome
        var renderer: [String]
        var endsBridgePeriod = true
        /// Leases released by the ending itself.
        var released: [String]
        /// Whether the prepared content stays (else the ending took it too).
        var keepsPrepared = true
        var testDescription: String { name }
    }

    @Test("Every other way a session ends: one event, its outcome, what it releases and calls", arguments: [
        Ending(
            name: "stopped by a denial: the renderer drops it; the caller discards what is prepared", exit: .stopped(.failure),
            outcome: .failed, renderer: ["unload"], released: []),
        Ending(name: "stopped by the app after a purchase request", exit: .stopped(.app), purchase: true, outcome: .purchased, renderer: ["unload"], released: []),
        Ending(
            name: "the renderer ended by itself: nothing to call, the period goes on", exit: .terminated, outcome: .failed, renderer: [],
            endsBridgePeriod: false, released: []),
        Ending(
            name: "the renderer ended by itself during a preview: the preview goes too", exit: .terminated, preview: true, outcome: .failed,
            renderer: [], endsBridgePeriod: false, released: ["preview"]),
        Ending(name: "stopped during a preview", exit: .stopped(.app), preview: true, outcome: .endedByApp, renderer: ["unload"], released: ["preview"]),
        Ending(
            name: "disposed: every lease goes", exit: .disposed, outcome: .endedByApp, renderer: [], released: ["prepared", "staged"],
            keepsPrepared: false),
    ])
    func ending(_ row: Ending) throws {
        let fixture = try StageFixture()
        var stage = PresentationStage()
        let prepared = try fixture.content(0, loaded: true)
        let staged = try fixture.content(1, revision: 2)
        let preview = try fixture.content(1, revision: 0, preloaded: false)
        _ = stage.prepared(prepared)
        let session: PresentationSession
        if row.preview {
            _ = stage.previewLoading(preview)
            session = fixture.session("p1", for: preview, preview: true)
        } else {
            session = fixture.session("s1", for: prepared)
        }
        _ = stage.opened(session, context: [:], entry: "index.html")
        if row.purchase { _ = stage.contentSent(.purchase(product: "plus")) }
        _ = stage.staged(staged)

        let action = row.exit == .disposed ? stage.disposed() : stage.ended(row.exit)

        #expect(action.ended?.outcome == row.outcome && action.ended?.exit == row.exit && action.ended?.session == session)
        #expect(action.ended?.endsBridgePeriod == row.endsBridgePeriod)
        #expect(Self.calls(action) == row.renderer)
        #expect(Self.released(action, ["prepared": prepared.lease, "staged": staged.lease, "preview": preview.lease]) == row.released)
        #expect((stage.prepared?.lease === prepared.lease) == row.keepsPrepared)
        #expect(stage.presented == nil && stage.preview == nil && stage.presentation == .hidden)
        if row.exit == .terminated { #expect(stage.prepared?.loaded == false) }
        if row.keepsPrepared {
            // What the stop's caller (or anyone) discards next.
            #expect(Self.released(stage.discarded(), ["prepared": prepared.lease, "staged": staged.lease]) == ["prepared", "staged"])
        }
    }

    @Test("What the renderer's termination decides, with nothing open (RendererTermination)", arguments: [true, false])
    func terminatedWhileHidden(_ loaded: Bool) throws {
        let fixture = try StageFixture()
        var stage = PresentationStage()
        _ = stage.prepared(try fixture.content(0, loaded: loaded))
        let (decision, action) = stage.rendererTerminated()
        #expect(decision == (loaded ? .markUnloaded : .record))
        #expect(action == .none)
        #expect(stage.prepared?.loaded == false)
        #expect(stage.memoryWarning() == .none, "nothing loaded to unload")
    }

    @Test("Preparing and staging release what nothing else holds; a shown bundle stays leased")
    func replacing() throws {
        let fixture = try StageFixture()
        var stage = PresentationStage()
        let first = try fixture.content(0)
        let second = try fixture.content(1, revision: 2)
        let third = try fixture.content(1, revision: 3)
        _ = stage.prepared(first)
        #expect(Self.released(stage.prepared(second), ["first": first.lease]) == ["first"])
        _ = stage.opened(fixture.session("s1", for: second), context: [:], entry: "index.html")
        #expect(stage.prepared(third) == .none, "the shown content keeps its lease")
        #expect(stage.staged(first) == .none)
        #expect(Self.released(stage.staged(second), ["first": first.lease]) == ["first"], "a later revision replaces the staged one")
    }

    @Test("The same revision resolved again keeps its lease and its load and takes the new standing")
    func resolvedAgain() throws {
        let fixture = try StageFixture()
        var stage = PresentationStage()
        let current = try fixture.content(0, loaded: true)
        _ = stage.prepared(current)
        var stale = current.journey.preloaded(false)
        stale.stale = true
        stale.fallbackReason = "the origin could not be asked"
        let kept = stage.resolvedAgain(stale)
        #expect(kept)
        #expect(stage.prepared?.lease === current.lease && stage.prepared?.loaded == true)
        #expect(stage.prepared?.journey.stale == true && stage.prepared?.journey.preloaded == true, "its mode stays")
        var other = stale
        other.revision = 2
        let another = stage.resolvedAgain(other)
        #expect(!another)
    }

    @Test("A confirmation renews what is prepared and shown; hidden and ready, readiness is published again")
    func renewed() throws {
        let fixture = try StageFixture()
        var stage = PresentationStage()
        let current = try fixture.content(0, loaded: true)
        _ = stage.prepared(current)
        var confirmed = current.journey
        confirmed.source = .revalidated
        fixture.clock.advance(by: .seconds(600))
        confirmed.renewed = fixture.clock.now
        #expect(stage.renewed(confirmed) == .init(then: [.publishReadiness]))
        #expect(stage.prepared?.journey == confirmed)
        _ = stage.opened(fixture.session("s1", for: current), context: [:], entry: "index.html")
        #expect(stage.flaggedRemoved() == .none, "shown: nothing to publish")
        #expect(stage.prepared?.journey.removed == true && stage.presented?.journey.stale == true)
    }

    @Test("The content's messages while open: outcome and screen; nothing while hidden")
    func contentSent() throws {
        let fixture = try StageFixture()
        var stage = PresentationStage()
        let current = try fixture.content(0)
        _ = stage.prepared(current)
        #expect(stage.contentSent(.purchase(product: "plus")) == .none)
        _ = stage.opened(fixture.session("s1", for: current), context: [:], entry: "index.html")
        #expect(stage.contentSent(.navigate(screen: "screen-2.html")) == .init(then: [.publishScreen(JourneyScreen(id: "screen-2.html"))]))
        #expect(stage.contentSent(.restorePurchases) == .none)
        #expect(stage.screen == JourneyScreen(id: "screen-2.html"))
        let action = stage.ended(.dismissed(.contentCompleted))
        #expect(action.ended?.outcome == .restored && action.ended?.screen == JourneyScreen(id: "screen-2.html"))
        #expect(action.ended?.summary == "restored on screen screen-2.html")
    }

    @Test("Memory warning: a hidden loaded renderer unloads; an open one stays; the renderer reports back")
    func memoryWarning() throws {
        let fixture = try StageFixture()
        var stage = PresentationStage()
        let current = try fixture.content(0, loaded: true)
        _ = stage.prepared(current)
        #expect(Self.calls(stage.memoryWarning()) == ["unload"])
        _ = stage.opened(fixture.session("s1", for: current), context: [:], entry: "index.html")
        #expect(stage.memoryWarning() == .none)
        _ = stage.ended(.stopped(.app))
        stage.rendererUnloaded()
        #expect(stage.prepared?.loaded == false)
        #expect(stage.loaded(try fixture.content(0).lease) == false, "another lease is not the prepared content")
        let loaded = stage.loaded(current.lease)
        #expect(loaded && stage.prepared?.loaded == true)
    }

    @Test("A preview that fails before it shows: its lease goes, the renderer unloads and loads the prepared content again")
    func previewFailed() throws {
        let fixture = try StageFixture()
        var stage = PresentationStage()
        let preview = try fixture.content(1, revision: 0, preloaded: false)
        let older = try fixture.content(1, revision: 0, preloaded: false)
        _ = stage.previewLoading(older)
        #expect(Self.released(stage.previewLoading(preview), ["older": older.lease]) == ["older"])
        let action = stage.previewFailed()
        #expect(Self.released(action, ["preview": preview.lease]) == ["preview"])
        #expect(Self.calls(action) == ["unload", "loadHidden"])
        #expect(stage.preview == nil && stage.presentation == .hidden)
    }
}
