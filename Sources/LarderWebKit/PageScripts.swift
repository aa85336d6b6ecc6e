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

    /// Installed at document start in ``world``: reports uncaught script errors and
    /// Content-Security-Policy violations (blocked requests) as they happen, numbered, and
    /// keeps them for ``readiness``.
    static let observer = """
        (() => {
          const channel = window.webkit.messageHandlers.\(engineChannel);
          const state = { seq: 0, errors: [], blocked: [] };
          window.__larder = state;
          const post = (event) => {
            event.seq = ++state.seq;
            try { channel.postMessage(event); } catch (error) { /* the view is going away */ }
          };
          addEventListener("error", (event) => {
            if (!(event instanceof ErrorEvent)) return;  // a resource's load error: the scheme log has it
            const report = { kind: "error", message: String(event.message), source: String(event.filename || ""),
                             line: event.lineno | 0, column: event.colno | 0 };
            state.errors.push(report);
            post(report);
          }, true);
          document.addEventListener("securitypolicyviolation", (event) => {
            const report = { kind: "blocked", url: String(event.blockedURI),
                             directive: String(event.effectiveDirective || event.violatedDirective) };
            state.blocked.push(report);
            post(report);
          });
        })();
        """

    /// The body of an async function run in ``world`` once the load finished: waits for
    /// `document.fonts.ready`, loads every `FontFace` (one the first screen does not use is
    /// still `unloaded`; `document.fonts.check()` says true even when every font failed, so
    /// each face's own status is what counts) and returns the document, each face with its
    /// status, the `@font-face` rules with their sources, and what ``observer`` saw.
    static let readiness = """
        await document.fonts.ready;
        const faces = [];
        document.fonts.forEach((face) => faces.push(face));
        await Promise.allSettled(faces.map((face) => face.load()));
        await document.fonts.ready;
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
        const state = window.__larder || { errors: [], blocked: [] };
        return {
          href: location.href, visibility: document.visibilityState,
          faces: faces.map((face) => ({ family: face.family, weight: String(face.weight), style: String(face.style),
                                        status: face.status })),
          rules, errors: state.errors, blocked: state.blocked,
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
