import CWebKitGTK
import Foundation
import LarderHost
import LarderJourneyView
import LarderSystem
import LarderWebKit
import Testing

/// What the view shows, read from its widgets.
@WebKitActor
enum ViewTree {
    /// Every widget under `root` (itself included), depth first.
    static func widgets(under root: UnsafeMutablePointer<GtkWidget>) -> [UnsafeMutablePointer<GtkWidget>] {
        var found = [root]
        guard larder_is_container(root) != 0, let children = gtk_container_get_children(larder_container(root)) else { return found }
        defer { g_list_free(children) }
        var node: UnsafeMutablePointer<GList>? = children
        while let current = node {
            if let child = current.pointee.data { found += widgets(under: larder_widget(child)) }
            node = current.pointee.next
        }
        return found
    }

    /// The widgets under `root` that are on screen now.
    static func shown(under root: UnsafeMutablePointer<GtkWidget>) -> [UnsafeMutablePointer<GtkWidget>] {
        widgets(under: root).filter { gtk_widget_get_mapped($0) != 0 }
    }

    /// The texts of the labels on screen under `root`.
    static func texts(under root: UnsafeMutablePointer<GtkWidget>) -> [String] {
        shown(under: root).filter { larder_is_label($0) != 0 }.map { String(cString: gtk_label_get_text(larder_label($0))) }
    }

    /// The buttons on screen under `root`, by label.
    static func buttons(under root: UnsafeMutablePointer<GtkWidget>) -> [String: UnsafeMutablePointer<GtkWidget>] {
        var buttons: [String: UnsafeMutablePointer<GtkWidget>] = [:]
        for widget in shown(under: root) where larder_is_button(widget) != 0 {
            if let label = gtk_button_get_label(larder_button(widget)) { buttons[String(cString: label)] = widget }
        }
        return buttons
    }

    /// The web views under `root`.
    static func webViews(under root: UnsafeMutablePointer<GtkWidget>) -> [UnsafeMutablePointer<GtkWidget>] {
        widgets(under: root).filter { larder_is_web_view($0) != 0 }
    }

    /// The loading indicator on screen under `root`, with its accessible role, name and
    /// description.
    static func indicator(under root: UnsafeMutablePointer<GtkWidget>) -> (role: String, name: String, description: String)? {
        guard let spinner = shown(under: root).first(where: { larder_is_spinner($0) != 0 }), let accessible = gtk_widget_get_accessible(spinner)
        else { return nil }
        return (
            String(cString: atk_role_get_name(atk_object_get_role(accessible))), String(cString: atk_object_get_name(accessible)),
            String(cString: atk_object_get_description(accessible))
        )
    }

    /// The widget as a raw `GtkWidget *`.
    static func widget(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutablePointer<GtkWidget> { larder_widget(pointer) }
}

/// Pictures the tests took, kept in `LARDER_VIEW_SHOTS` when it is set (for people to look at).
enum Shots {
    @WebKitActor
    static func keep(_ picture: WindowPicture?, as name: String) {
        guard let folder = ProcessInfo.processInfo.environment["LARDER_VIEW_SHOTS"], let picture else { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(try picture.png()).write(to: URL(fileURLWithPath: folder + "/" + name + ".png"))
        } catch {
            Issue.record("cannot keep the picture \(name): \(error)")
        }
    }
}

/// Polls `condition` on the main loop every 20 ms until it holds or `timeout` passed.
@WebKitActor
func onScreen(within timeout: Duration = .seconds(20).scaledForTests, _ condition: @WebKitActor () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

/// What a view gave the app: its errors and results, in order.
@WebKitActor
final class Seen {
    var errors: [HostError] = []
    var results: [PresentationResult] = []

    init(_ view: JourneyView) {
        view.onError = { [weak self] in self?.errors.append($0) }
        view.onResult = { [weak self] in self?.results.append($0) }
    }
}

/// What an app's error view was given.
@WebKitActor
final class Failures {
    var errors: [HostError] = []
    var retry: (@WebKitActor () -> Void)?
}

/// The overlay windows on screen.
@WebKitActor
enum Overlays {
    /// How many windows transient for `app` are mapped.
    static func mapped(over app: UnsafeMutablePointer<GtkWidget>) -> Int {
        guard let list = gtk_window_list_toplevels() else { return 0 }
        defer { g_list_free(list) }
        var count = 0
        var node: UnsafeMutablePointer<GList>? = list
        while let current = node {
            if let window = current.pointee.data, gtk_window_get_transient_for(larder_window(window)) == larder_window(app),
                gtk_widget_get_mapped(larder_widget(window)) != 0
            {
                count += 1
            }
            node = current.pointee.next
        }
        return count
    }
}

/// The web processes this test process started itself, under their sandbox (`bwrap`): not
/// those of a `larder-webkit` another suite runs meanwhile, which are descendants too.
enum OwnWebProcesses {
    static func running() -> [RunningProcess] {
        let me = getpid()
        return WebProcesses.running().filter { process in
            var parent = process.parent
            for _ in 0..<8 {
                if parent == me { return true }
                guard let step = ProcessTable.process(parent), step.name == "bwrap" else { return false }
                parent = step.parent
            }
            return false
        }
    }
}
