import Foundation
import LarderFormat
#if canImport(Glibc)
import Glibc
#endif

/// `larder preview <folder> [--port <port>]`: serves the flow on 127.0.0.1 as a device loads
/// it, with a bridge log and controls, and reloads it on every saved change.
enum PreviewCommand {
    static let spec = CommandSpec(
        name: "preview",
        overview: "Serve a flow's source folder on 127.0.0.1 as a device loads it, with a bridge log, and reload it on every change.",
        usage: "larder preview <folder> [--port <port>]",
        arguments: [("<folder>", "The flow's source folder (with its larder.json).")],
        options: [Options.port.spec],
        discussion: """
            The folder is packed through the real pipeline (the packer and its font cache) and
            served from the archive as a device loads it: the device's Content-Security-Policy,
            larder-font: URLs resolved to the bundle's fonts, and the bridge: every message the
            page posts is read by the host's rules, printed here and listed in the page's panel,
            and a refusal rejects the page's promise with the host's words. The panel hides,
            shows and resets the flow and sets its context (window.larder.context).

            Every saved change (inotify) packs the folder again and reloads the page; a pack
            that fails shows its errors, each with its file:line:column, until the next save.
            Only 127.0.0.1 listens; nothing leaves the machine. Stop it with Ctrl-C.

            EXIT STATUS: 64 usage error, 66 no such folder, 73 the port or the folder cannot be used.
            """)

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 1...1) } catch {
            return Console.usageError(error)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        let port: Int
        do throws(UsageError) { port = try parsed[Options.port] } catch { return Console.usageError(error) }
        let source = parsed.positionals[0]
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isFolder), isFolder.boolValue else {
            Console.failure("\(shown(source)): no such folder")
            return .noInput
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("larder-preview-\(UUID().uuidString)").path
        let site = PreviewSite(source: source, scratch: scratch)
        do throws(PreviewError) {
            let server = try LoopbackServer(port: port) { request in site.handle(request) }
            _ = try FolderWatch(source) { site.rebuild() }
            server.start()
            Console.out("Preview: http://127.0.0.1:\(server.port)/   (\(shown(source)); Ctrl-C stops)")
        } catch {
            Console.failure("\(shown(error.description))")
            return .cannotCreate
        }
        // Serves until a signal ends the process; the scratch folder goes with it.
        signal(SIGINT) { _ in exitCleanly() }
        signal(SIGTERM) { _ in exitCleanly() }
        previewScratch = scratch
        while true { pause() }
    }
}

/// The scratch folder the preview packs into, removed when a signal ends it.
nonisolated(unsafe) private var previewScratch: String?

private func exitCleanly() {
    if let scratch = previewScratch { _ = rmdir(scratch) }
    _exit(0)
}
