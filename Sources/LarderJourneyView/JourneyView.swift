import CWebKitGTK
import Foundation
import LarderHost
import LarderWebKit

/// A journey on screen, for GTK apps: a widget over a `JourneyHost` made with a
/// `WebKitRenderer`.
///
/// - **Appears, presents; leaves, dismisses.** When its widget is mapped (on screen) it calls
///   the host's `JourneyHost.present(context:)`; when unmapped, `JourneyHost.dismiss()`.
/// - **Loading state.** While the host prepares, a progress indicator without text, named
///   "Loading" and described for assistive technologies, which stands still when GTK's
///   `gtk-enable-animations` is off (the user asked for reduced motion); or the app's own
///   `loadingView`.
/// - **Error state.** When the host cannot present (nothing to show, not ready within the
///   15-second presentation deadline, the renderer failed) or the flow on show fails (its web
///   process ended): a generic message and a "Try again" button that prepares and presents
///   again; or the app's own `errorView`. The error itself goes to the app (``onError``,
///   ``errors``), for its logs, never onto the screen.
/// - **The flow.** Once the host shows it, the renderer's own web view (the `WebKitRenderer`
///   the host was made with, prepared hidden) sits in the view: no second web view is made, and
///   the host hides it again (to its renderer's window) after the flow ends.
/// - **Overlay or inline.** ``present(over:)`` puts it in a window of its own, transient for
///   the app's window, modal, kept above, at the flow's viewport size, one at a time among the
///   hosts of a `PresentationCoordinator` and never within the foreground grace;
///   ``widget`` is a plain widget to embed inline.
/// - **The result.** When the flow ends: its outcome, last screen and session, to ``onResult``,
///   ``results`` and ``result()``.
///
/// Isolated to `WebKitActor`: every call runs on the GLib main-loop thread, as GTK requires.
/// The view only calls the host's public API; the host decides everything it decides without a
/// view (freshness, deadlines, one at a time).
@WebKitActor
public final class JourneyView {
    /// Where the view is.
    public enum Phase: Sendable, Equatable {
        /// Not on screen.
        case idle
        /// The loading state: the host prepares and presents.
        case loading
        /// The flow is on show.
        case showing
        /// The error state.
        case failed
        /// The flow ended or was dismissed.
        case ended
    }

    /// Makes the error state's widget (a `GtkWidget *`) for an error, given the action that
    /// tries again. The error is for the app's logs: show a message of your own.
    public typealias ErrorViewFactory = @WebKitActor (_ error: HostError, _ retry: @escaping @WebKitActor () -> Void) -> UnsafeMutableRawPointer

    /// The host whose journey the view shows.
    public nonisolated let host: JourneyHost
    /// The context of every presentation the view opens (`JourneyHost.present(context:)`).
    public var context: [String: String]
    /// Called with each error the view shows its error state for, for the app's logs.
    public var onError: (@WebKitActor (HostError) -> Void)?
    /// Called with the result of each flow the view showed, when it ends.
    public var onResult: (@WebKitActor (PresentationResult) -> Void)?
    /// The errors of ``onError``, as a stream (until the view goes).
    public nonisolated let errors: AsyncStream<HostError>
    /// The results of ``onResult``, as a stream (until the view goes).
    public nonisolated let results: AsyncStream<PresentationResult>

    var stage = JourneyViewStage()
    let pages: ViewPages
    private(set) var slot: ContentSlot!
    let errorView: ErrorViewFactory?
    private let errorContinuation: AsyncStream<HostError>.Continuation
    private let resultContinuation: AsyncStream<PresentationResult>.Continuation
    /// Whoever awaits ``result()``.
    private var waiters: [UUID: CheckedContinuation<PresentationResult?, Never>] = [:]
    /// The attempt in progress, and the wait for the end of the session on show.
    var presenting: Task<Void, Never>?
    var ending: Task<Void, Never>?
    /// The last call made to the host: the next waits for it, so a dismissal and the
    /// presentation after it reach the host in that order.
    var lastHostCall: Task<Void, Never>?
    /// The renderer whose web view the view shows, once known.
    package private(set) var renderer: WebKitRenderer?
    /// The session on show.
    public private(set) var session: PresentationSession?
    /// Whether the result of a flow the person saw is still to come (``result()`` gives it).
    package var isResultPending: Bool { stage.resultPending }
    /// The attempt the error page was made for.
    private var errorPageAttempt = 0
    /// The overlay window, while the view is presented in one.
    var overlay: OverlayWindow?
    /// Raised while ``present(over:)`` waits for the grace; a dismissal lowers it.
    var overlayPending: UUID?
    /// Called when the overlay window closed (the CLI's window run ends then).
    package var onOverlayClosed: (@WebKitActor () -> Void)?
    /// The widget was destroyed (its container went): the view shows nothing any more.
    package private(set) var isDestroyed = false

    /// Creates the view; nothing is asked of the host before its widget appears.
    /// - Parameters:
    ///   - host: the host, made with a `WebKitRenderer` (the view shows its web view).
    ///   - context: the context of each presentation.
    ///   - loadingView: a `GtkWidget *` shown instead of the built-in loading state (the view
    ///     keeps it for its life).
    ///   - errorView: makes the widget shown instead of the built-in error state.
    /// - Throws: `HostError.Code.renderer` naming `display` when GTK has no display (it was not
    ///   initialised, or could not open one): GTK cannot make widgets then.
    public init(
        host: JourneyHost, context: [String: String] = [:], loadingView: UnsafeMutableRawPointer? = nil,
        errorView: ErrorViewFactory? = nil
    ) throws(HostError) {
        guard gdk_display_get_default() != nil else {
            throw HostError(
                .renderer, "a JourneyView needs GTK with a display (set DISPLAY, or call VirtualDisplay.startIfNeeded() before GTK starts)",
                resource: "display")
        }
        self.host = host
        self.context = context
        self.errorView = errorView
        (errors, errorContinuation) = AsyncStream.makeStream(of: HostError.self)
        (results, resultContinuation) = AsyncStream.makeStream(of: PresentationResult.self)
        pages = ViewPages(loading: loadingView.map { larder_widget($0)! } ?? BuiltInStates.loading())
        slot = ContentSlot(self)
        Signal.connect(pages.stack, "map") { [weak self] in self?.handle { $0.mapped() } }
        Signal.connect(pages.stack, "unmap") { [weak self] in self?.handle { $0.unmapped() } }
        Signal.connect(pages.stack, "destroy") { [weak self] in self?.widgetDestroyed() }
    }

    isolated deinit {
        presenting?.cancel()
        ending?.cancel()
        overlay?.close()
        renderer?.parkWebView()
        for waiter in waiters.values { waiter.resume(returning: nil) }
        errorContinuation.finish()
        resultContinuation.finish()
    }

    /// The view's `GtkWidget *`, to add to a container of the app (inline embedding). The view
    /// keeps a reference of its own.
    public var widget: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pages.stack) }

    /// Where the view is.
    public var phase: Phase {
        switch stage.phase {
        case .idle: .idle
        case .loading: .loading
        case .showing: .showing
        case .failed: .failed
        case .ended: .ended
        }
    }

    /// Ends the flow (`JourneyHost.dismiss()`) or the attempt in progress; an overlay
    /// closes, an inline view shows nothing until it appears again.
    public func dismiss() {
        overlayPending = nil
        handle { $0.dismissed() }
    }

    /// The result of the flow the view shows now or next, once it ends; nil when the view
    /// leaves (or is dismissed, or goes) without having shown one, or when the calling task is
    /// cancelled.
    public func result() async -> PresentationResult? {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PresentationResult?, Never>) in
                if Task.isCancelled || isDestroyed { return continuation.resume(returning: nil) }
                waiters[id] = continuation
            }
        } onCancel: {
            Task { @WebKitActor [weak self] in self?.resolveWaiter(id, nil) }
        }
    }

    // MARK: The one place actions are performed

    /// Applies an event of the stage and performs what it returns, in order.
    func handle(_ event: (inout JourneyViewStage) -> [JourneyViewStage.Action]) {
        let actions = event(&stage)
        for action in actions { perform(action) }
    }

    private func perform(_ action: JourneyViewStage.Action) {
        switch action {
        case .present(let attempt): startPresenting(attempt)
        case .cancelPresenting:
            presenting?.cancel()
            presenting = nil
        case .dismissHost: callHost { host in await host.dismiss() }
        case .awaitEnd(let session): awaitEnd(of: session)
        case .show(let page): show(page)
        case .report(let error):
            onError?(error)
            errorContinuation.yield(error)
        case .deliver(let result):
            onResult?(result)
            resultContinuation.yield(result)
            resolveWaiters(result)
        case .endWithoutResult: resolveWaiters(nil)
        case .closeOverlay: closeOverlay()
        }
    }

    private func show(_ page: JourneyViewStage.Page) {
        guard !isDestroyed else { return }
        if page == .error, errorPageAttempt != stage.attempt, let error = stage.error {
            errorPageAttempt = stage.attempt
            pages.setError(makeErrorWidget(error))
        }
        pages.show(page)
    }

    private func makeErrorWidget(_ error: HostError) -> UnsafeMutablePointer<GtkWidget> {
        let retry: @WebKitActor () -> Void = { [weak self] in self?.handle { $0.retried() } }
        if let errorView {
            let widget: UnsafeMutableRawPointer = errorView(error, retry)
            return larder_widget(widget)!
        }
        // An overlay has a way out; an inline view is the app's to remove.
        var close: (@WebKitActor () -> Void)?
        if overlay != nil { close = { [weak self] in self?.dismiss() } }
        return BuiltInStates.error(retry: retry, close: close)
    }

    private func resolveWaiters(_ result: PresentationResult?) {
        let all = waiters
        waiters = [:]
        for waiter in all.values { waiter.resume(returning: result) }
    }

    private func resolveWaiter(_ id: UUID, _ result: PresentationResult?) {
        waiters.removeValue(forKey: id)?.resume(returning: result)
    }

    /// The widget is being destroyed (the app's container went): the renderer gets its web
    /// view back before GTK destroys the children, and the flow ends.
    private func widgetDestroyed() {
        renderer?.parkWebView()
        isDestroyed = true
        handle { $0.unmapped() }
        resolveWaiters(nil)
    }

    /// Keeps the view's reference to the renderer (see ``JourneyView+Presenting.swift``).
    func keep(_ renderer: WebKitRenderer) { self.renderer = renderer }

    /// Records the session on show.
    func keep(_ session: PresentationSession?) { self.session = session }
}
