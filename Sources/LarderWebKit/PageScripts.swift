import Foundation

/// The JavaScript LarderWebKit runs in pages. Its own code runs in an isolated script world
/// (``world``): the page cannot see or change it, and it sees the page's DOM.
enum PageScripts {
    /// The isolated world of Larder's own scripts.
    static let world = "larder"
    /// The message channel of Larder's own scripts, in ``world``.
    static let engineChannel = "larderEngine"
    /// The page's bridge: `window.webkit.messageHandlers.larder.postMessage(...)`.
    static let bridgeChannel = "larder"

    /// Installed at document start in ``world``, in every frame: reports uncaught script
    /// errors, Content-Security-Policy violations (blocked requests) and link hints to remote
    /// hosts (`preconnect`, `dns-prefetch`, `prefetch`, `prerender`: the engine follows none,
    /// but the content asked) as they happen, each with an id unique to its frame, and keeps
    /// them for ``readiness``. At most 1,000 reports a frame: a page cannot flood the renderer.
    static let observer = """
        (() => {
          const channel = window.webkit.messageHandlers.\(engineChannel);
          const frame = Math.random().toString(36).slice(2);
          const state = { seq: 0, errors: [], blocked: [], hints: [], seen: new Set() };
          window.__larder = state;
          const post = (event) => {
            if (state.seq >= 1000) return false;
            event.id = frame + ":" + (++state.seq);
            try { channel.postMessage(event); } catch (error) { /* the view is going away */ }
            return true;
          };
          addEventListener("error", (event) => {
            if (!(event instanceof ErrorEvent)) return;  // a resource's load error: the scheme log has it
            const report = { kind: "error", message: String(event.message), source: String(event.filename || ""),
                             line: event.lineno | 0, column: event.colno | 0 };
            if (post(report)) state.errors.push(report);
          }, true);
          document.addEventListener("securitypolicyviolation", (event) => {
            const report = { kind: "blocked", url: String(event.blockedURI),
                             directive: String(event.effectiveDirective || event.violatedDirective) };
            if (post(report)) state.blocked.push(report);
          });
          const hints = ["preconnect", "dns-prefetch", "prefetch", "prerender"];
          state.scan = () => {
            for (const link of document.querySelectorAll("link[rel][href]")) {
              const href = String(link.href);
              if (!/^(https?|wss?):/i.test(href)) continue;
              for (const rel of String(link.rel).toLowerCase().split(/\\s+/)) {
                if (!hints.includes(rel) || state.seen.has(rel + " " + href)) continue;
                state.seen.add(rel + " " + href);
                const report = { kind: "hint", rel, url: href };
                if (post(report)) state.hints.push(report);
              }
            }
          };
          document.addEventListener("DOMContentLoaded", state.scan);
          addEventListener("load", state.scan);
        })();
        """

    /// The body of an async function run in ``world`` once the load finished: waits for
    /// `document.fonts.ready` (unless the set already reads `loaded`), loads every `FontFace` (one the first screen does not use is
    /// still `unloaded`; `document.fonts.check()` says true even when every font failed, so
    /// each face's own status is what counts) and returns the document, each face with its
    /// status, the `@font-face` rules with their sources, and what ``observer`` saw.
    static let readiness = """
        // A document whose parser stopped (it started a navigation while loading, which was
        // refused) reads "loaded" and never settles ready: the faces' own loads decide then.
        const fontsReady = () => document.fonts.status === "loaded" ? Promise.resolve() : document.fonts.ready;
        await fontsReady();
        const faces = [];
        document.fonts.forEach((face) => faces.push(face));
        await Promise.allSettled(faces.map((face) => face.load()));
        await fontsReady();
        const rules = [];
        const visit = (list) => {
          for (const rule of list) {
            if (rule.type === CSSRule.FONT_FACE_RULE) {
              const style = rule.style;
              rules.push({ family: style.getPropertyValue("font-family"), weight: style.getPropertyValue("font-weight"),
                           style: style.getPropertyValue("font-style"), src: style.getPropertyValue("src") });
            } else if (rule.type === CSSRule.IMPORT_RULE) {
              try { if (rule.styleSheet) visit(rule.styleSheet.cssRules); } catch (error) { }
            } else if (rule.cssRules) {
              try { visit(rule.cssRules); } catch (error) { }
            }
          }
        };
        for (const sheet of document.styleSheets) { try { visit(sheet.cssRules); } catch (error) { } }
        const state = window.__larder || { errors: [], blocked: [], hints: [] };
        if (state.scan) state.scan();
        return {
          href: location.href, visibility: document.visibilityState,
          faces: faces.map((face) => ({ family: face.family, weight: String(face.weight), style: String(face.style),
                                        status: face.status })),
          rules, errors: state.errors, blocked: state.blocked, hints: state.hints,
        };
        """

    /// A statement that dispatches `name` as a `CustomEvent` on `target` with `detail` (JSON).
    static func dispatch(_ name: String, on target: String, detail json: String) -> String {
        "\(target).dispatchEvent(new CustomEvent(\(quoted(name)), { detail: \(json) })); undefined"
    }

    /// `text` as a JavaScript string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
