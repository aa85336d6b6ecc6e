import Foundation
import LarderCache
import LarderFormat
import LarderHost

/// `larder render`: renders a flow's entry screen from a cache in the web engine and writes a
/// PNG, for build pipelines and designers.
enum RenderCommand {
    static let spec = CommandSpec(
        name: "render",
        overview: "Render a flow's entry screen in the web engine from a cache and write a PNG.",
        usage: "larder render <archive-or-bundle> --screenshot <png> [--viewport <WxH>] [--cache <dir>] [--json]",
        arguments: [
            (
                "<archive-or-bundle>",
                "A bundle archive (a path with a '/', or ending in .tar.gz or .tgz; installed into the cache first), or a bundle in the cache: digest, hex prefix or name."
            )
        ],
        options: [
            Options.screenshot.spec,
            WebEngineSupport.viewport.spec,
            Options.cache.spec,
            OptionSpec(names: ["--json"], value: nil, help: "Print the report as JSON."),
        ],
        discussion: """
            The entry document is loaded hidden through the larder:// scheme (the bundle's verified
            bytes) with its fonts through larder-font://, exactly as an app's renderer loads it, and
            is captured once it is ready: loaded, every FontFace loaded, every essential file served
            and no script error. Nothing reaches past the bundle: remote requests (blocked by the
            Content-Security-Policy and by the engine's egress filter), navigations away, popups,
            downloads and form posts are refused and listed as Blocked; dialogs (alert, confirm,
            prompt, print) are answered at once and listed; a page not ready within 10 s has its
            web process ended.

            \(WebEngineSupport.displayNote)

            EXIT STATUS: 0 rendered, 64 usage error, 65 the archive is invalid or the flow did not
            render (a missing or corrupt object, a font that did not load, a script error, not
            ready within 10 s), 66 no such archive or bundle, 69 no display, 73 the PNG cannot be
            written, 1 anything else.
            """)

    static func run(_ arguments: [String], engine: any WebEngineRunner) -> ExitCode {
        let parsed: ParsedArguments
        let viewport: Viewport
        let output: String
        let cacheFolder: String?
        do throws(UsageError) {
            parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 1...1)
            if parsed.wantsHelp { Console.out(spec.helpText); return .success }
            viewport = try parsed[WebEngineSupport.viewport]
            guard let path = try parsed[Options.screenshot], !path.isEmpty else {
                throw UsageError(message: "Missing '--screenshot <png>'", command: spec)
            }
            output = path
            cacheFolder = try parsed[Options.cache]
        } catch {
            return Console.usageError(error)
        }
        do { try engine.takeOver() } catch {
            Console.failure("\(shown(error))")
            return .unavailable
        }
        let source = parsed.positionals[0]
        let isArchive = looksLikeArchive(source)
        if isArchive, let refusal = archiveRefusal(source) {
            Console.failure("\(refusal)")
            return .noInput
        }
        var temporary: String?
        defer {
            if let temporary {
                do { try FileManager.default.removeItem(atPath: temporary) } catch { Console.error("warning: cannot remove \(shown(temporary)): \(shown(error))") }
            }
        }
        let cache: LarderCache
        let bundle: Digest
        do throws(CacheError) {
            var folder = cacheFolder ?? LarderCache.defaultPath
            if isArchive && cacheFolder == nil {
                folder = FileManager.default.temporaryDirectory.appendingPathComponent("larder-render-\(getpid())-\(UUID().uuidString)").path
                temporary = folder
            }
            // A bundle by name or digest is read from a cache that must be there (never created);
            // an archive is installed, into a cache made for it if need be.
            if !isArchive { try CacheFolder.requireExisting(folder) }
            cache = try LarderCache(at: folder)
            bundle = isArchive ? try cache.install(archiveAt: source).bundle : try CacheCommand.find(source, in: cache).digest
        } catch {
            let hint = !isArchive && error.code == .bundleNotFound && FileManager.default.fileExists(atPath: source)
                ? " ('\(source)' here is read as a bundle name: write './\(source)' to read it as an archive)" : ""
            let status: ExitCode =
                switch error.code {
                case .bundleNotFound, .cacheNotFound: .noInput
                case .invalidBundle, .bundleDigestMismatch, .corruptObject, .bundleIncomplete: .dataError
                default: .failure
                }
            return FailureJSON.failed(
                status, code: error.code.rawValue, message: "\(source): \(error)\(hint)", path: error.path, json: parsed.flag("--json"))
        }
        let display: String?
        do { display = try engine.display() } catch {
            Console.failure("\(shown(error))")
            return .unavailable
        }
        let outcome = waitFor { await engine.render(bundle, cache: cache, viewport: viewport) }
        switch outcome {
        case .failure(let error):
            return FailureJSON.failed(
                error.code == .renderer ? .dataError : .failure, code: error.code.rawValue, message: "\(error)",
                json: parsed.flag("--json"))
        case .success(let rendered):
            do { try WebEngineSupport.write(rendered.png, to: output) } catch {
                Console.failure("cannot write the screenshot: \(shown(error))")
                return .cannotCreate
            }
            print(rendered, bundle: bundle, name: rendered.name, viewport: viewport, output: output, display: display, json: parsed.flag("--json"))
            return .success
        }
    }

    /// Whether the operand names an archive file rather than a bundle in the cache: it has a
    /// path separator or an archive's extension. What the current folder holds does not
    /// matter, so `render onboarding --cache <dir>` renders the cached bundle even where a
    /// folder named `onboarding` (its source) is.
    static func looksLikeArchive(_ operand: String) -> Bool {
        operand.contains("/") || operand.hasSuffix(".tar.gz") || operand.hasSuffix(".tgz")
    }

    /// Why `path` cannot be read as an archive (missing, a folder), said before any cache
    /// is touched; nil when it is a file.
    private static func archiveRefusal(_ path: String) -> String? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            return "\(shown(path)): no such archive (a bundle in the cache is named without a '/')"
        }
        guard isFolder.boolValue else { return nil }
        return "\(shown(path)) is a folder, not a bundle archive: pack it first ('larder pack \(shown(path))'), "
            + "or name a bundle in the cache without a '/'"
    }

    private static func print(
        _ rendered: RenderedScreen, bundle: Digest, name: String, viewport: Viewport, output: String, display: String?, json: Bool
    ) {
        if json {
            guard case .object(var fields) = rendered.json else { return }
            fields["bundle"] = .string(bundle.description)
            fields["name"] = .string(name)
            fields["viewport"] = .string(viewport.description)
            fields["screenshot"] = .string(output)
            fields["screenshotBytes"] = .int(Int64(rendered.png.count))
            fields["display"] = display.map(JSONValue.string) ?? .null
            Console.json(.object(fields))
            return
        }
        var rows = [["Bundle", "\(name) \(bundle)"]]
        rows += rendered.rows
        rows.append(["Screenshot", "\(output) (\(viewport), \(humanSize(Int64(rendered.png.count))))"])
        if let display { rows.append(["Display", "\(display) (Xvfb started for this run)"]) }
        Console.out(table(rows))
    }
}
