import CWebKitGTK
import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderJourneyView
import LarderPack
import LarderPublish
import LarderSystem
import LarderTestSupport
import LarderWebKit
import Testing

/// What the journey view's tests share: a cache, the onboarding sample packed (as an embedded
/// default) and published to an origin folder, hosts with web engine renderers, and the app's
/// windows, all torn down by ``close()``.
@WebKitActor
final class JourneyViewWorld {
    let fixture: WebKitFixture
    /// The onboarding sample's archive.
    let archive: String
    /// An origin folder where the onboarding sample is published as journey "onboarding".
    let originFolder: String
    private var windows: [UnsafeMutablePointer<GtkWidget>] = []
    private var hosts: [JourneyHost] = []
    private var origins: [GatedOrigin] = []

    /// A port nothing listens on: the host falls back to the embedded default at once.
    static let unreachable = URL(string: "http://127.0.0.1:1/")!
    /// The flows' size: smaller than a phone's, to keep the pictures quick to compare.
    static let viewport = Viewport(width: 360, height: 640)

    /// Runs `body` on the main loop with a new world, which it closes afterwards. The display
    /// starts first: GTK opens it once, when the main loop starts.
    nonisolated static func run(_ body: @escaping @WebKitActor (JourneyViewWorld) async throws -> Void) async throws {
        _ = try testDisplay.get()
        try await inWorld(body)
    }

    private static func inWorld(_ body: @WebKitActor (JourneyViewWorld) async throws -> Void) async throws {
        // Without a display GTK aborts the process at the first widget: a failure instead.
        guard gdk_display_get_default() != nil else { throw HostError(.renderer, "GTK opened no display", resource: "display") }
        let world = try JourneyViewWorld()
        do { try await body(world) } catch {
            await world.close()
            throw error
        }
        await world.close()
    }

    private init() throws {
        fixture = try WebKitFixture()
        archive = try Packer.pack(source: sampleBundles + "/onboarding", into: fixture.root + "/packed").archivePath
        originFolder = fixture.root + "/origin"
        try FileManager.default.createDirectory(atPath: originFolder, withIntermediateDirectories: true)
        _ = try OriginPublisher.publish(archives: [archive], to: originFolder, journey: JourneyPublication(id: "onboarding", key: "pk_test"))
    }

    /// A host with a web engine renderer: the journey from `origin`, or when it cannot be
    /// asked, from the embedded default.
    func host(
        origin: URL = unreachable, embedded: Bool = true, coordinator: PresentationCoordinator = PresentationCoordinator(),
        deadline: Duration = .seconds(60).scaledForTests, grace: Duration = .milliseconds(500)
    ) throws -> (JourneyHost, WebKitRenderer) {
        let renderer = WebKitRenderer(
            configuration: .init(viewport: Self.viewport, loadTimeout: WebKitFixture.configuration.loadTimeout))
        var configuration = JourneyConfiguration(
            publishableKey: "pk_test", journeyID: "onboarding", origin: origin, embeddedDefault: embedded ? archive : nil,
            fetchDeadline: .seconds(60).scaledForTests, presentationDeadline: deadline)
        configuration.foregroundGrace = grace
        let host = try JourneyHost(
            configuration: configuration, cache: fixture.cache, renderer: renderer,
            storage: fixture.root + "/host-\(UUID().uuidString)", captureSink: HeldSink(), coordinator: coordinator)
        hosts.append(host)
        return (host, renderer)
    }

    /// An origin serving ``originFolder`` whose journey document answers as `plan` says, one
    /// answer a request, then normally.
    func origin(_ plan: [GatedOrigin.Answer]) throws -> GatedOrigin {
        let origin = try GatedOrigin(folder: originFolder, plan: plan)
        origins.append(origin)
        return origin
    }

    /// The app's window, shown at the top left of the screen, its name at its top left.
    func appWindow(width: Int = 800, height: Int = 900) -> UnsafeMutablePointer<GtkWidget> {
        let window = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
        gtk_window_set_title(larder_window(window), "App")
        gtk_window_set_default_size(larder_window(window), gint(width), gint(height))
        gtk_window_move(larder_window(window), 0, 0)
        gtk_widget_show(window)
        windows.append(window)
        return window
    }

    /// An app's window with a label in it, for pictures of an overlay above an app.
    func labelledAppWindow() -> UnsafeMutablePointer<GtkWidget> {
        let window = appWindow()
        let label = gtk_label_new(nil)!
        gtk_label_set_markup(larder_label(label), "<span size='xx-large'>The app's own window</span>")
        gtk_widget_set_halign(label, GTK_ALIGN_START)
        gtk_widget_set_valign(label, GTK_ALIGN_START)
        gtk_widget_set_margin_start(label, 16)
        gtk_widget_set_margin_top(label, 16)
        gtk_container_add(larder_container(window), label)
        gtk_widget_show(label)
        return window
    }

    /// Destroys one of the app's windows.
    func destroy(_ window: UnsafeMutablePointer<GtkWidget>) {
        windows.removeAll { $0 == window }
        gtk_widget_destroy(window)
    }

    /// Destroys the app's windows, disposes the hosts and stops the origins.
    func close() async {
        for window in windows { gtk_widget_destroy(window) }
        windows = []
        for host in hosts { await host.dispose() }
        for origin in origins { origin.stop() }
    }

    /// Keeps captured events queued.
    struct HeldSink: CaptureSink {
        func deliver(_ events: [CaptureEvent]) async -> CaptureReceipt { .failed(HostError(.unavailable, "held by the test")) }
    }
}

/// An origin folder served on 127.0.0.1 whose journey document answers as a plan says: one
/// answer per request of the document, then normally; the files are served normally.
final class GatedOrigin: Sendable {
    enum Answer: Sendable {
        /// The document, normally.
        case serve
        /// The headers at once, the document once ``GatedOrigin/release()`` is called.
        case hold
        /// 503 with `Retry-After: 0`: unavailable now, and the host may ask again at once.
        case unavailable
        /// Nothing, ever: the request stays open.
        case never
    }

    private let plan: Locked<[Answer]>
    private let released: Locked<Bool>
    private let requests: Locked<Int>
    private let server: FaultOrigin
    var url: URL { URL(string: "http://127.0.0.1:\(server.port)/")! }

    init(folder: String, plan: [Answer]) throws {
        let plan = Locked(plan)
        let released = Locked(false)
        let requests = Locked(0)
        self.plan = plan
        self.released = released
        self.requests = requests
        server = try FaultOrigin { request in
            guard request.path.hasPrefix("/journeys/") else { return .file(root: folder) }
            requests.withLock { $0 += 1 }
            let answer = plan.withLock { $0.isEmpty ? .serve : $0.removeFirst() }
            switch answer {
            case .serve: return .file(root: folder)
            case .never: return .readAndNeverAnswer
            case .unavailable: return .respond(status: 503, headers: [("Retry-After", "0")], body: Array("unavailable".utf8))
            case .hold:
                let path = folder + (request.path.split(separator: "?").first.map(String.init) ?? request.path)
                let document = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
                let sent = Locked(false)
                return .stream(status: 200, headers: [("Content-Type", "application/json")], contentLength: Int64(document.count)) {
                    // Bounded: a test that never releases ends the hold after a minute.
                    let deadline = ContinuousClock.now + .seconds(60)
                    while !released.withLock({ $0 }) && ContinuousClock.now < deadline { usleep(20_000) }
                    return sent.withLock { sent in
                        defer { sent = true }
                        return sent ? nil : document
                    }
                }
            }
        }
    }

    /// How many times the journey document was asked for.
    var documentRequests: Int { requests.withLock { $0 } }

    /// Lets held answers go.
    func release() { released.withLock { $0 = true } }

    func stop() {
        release()
        server.stop()
    }
}
