import Foundation
import LarderFormat

/// The JavaScript LarderWebKit runs in pages. Its own code runs in an isolated script world
/// (``world``): the page cannot see or change it, and it sees the page's DOM.
package enum PageScripts {
    /// The isolated world of Larder's own scripts.
    package static let world = "larder"
    /// The message channel of Larder's own scripts, in ``world``.
    package static let engineChannel = "larderEngine"
    /// The page's bridge: `window.webkit.messageHandlers.larder.postMessage(...)`.
    package static let bridgeChannel = "larder"

    /// Installed at document start in ``world``, in every frame: reports uncaught script
    /// errors, Content-Security-Policy violations (blocked requests) and link hints to remote
    /// hosts (`preconnect`, `dns-prefetch`, `prefetch`, `prerender`: the engine follows none,
    /// but the content asked), and links followed to a port the engine refuses without asking
    /// (``barredPorts``), as they happen, each with an id unique to its frame, and keeps them for
    /// ``readiness``. At most 1,000 reports a frame: a page cannot flood the renderer.
    package static let observer = """
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
          const barredPorts = new Set([\(barredPorts.map(String.init).joined(separator: ","))]);
          const barred = (url) => {
            try {
              const parsed = new URL(url);
              return /^(https?|wss?):$/.test(parsed.protocol)
                && (barredPorts.has(Number(parsed.port || "0")) || parsed.hostname === "0.0.0.0");
            } catch (error) { return false; }
          };
          addEventListener("click", (event) => {
            const link = event.composedPath().find((node) => node instanceof Element && node.matches("a[href], area[href]"));
            if (!link || !barred(String(link.href))) return;
            const url = String(link.href);
            const directive = String(link.target).toLowerCase() === "_blank" ? "popup" : "navigation";
            // Known once every listener ran: a page that cancels the click followed nothing.
            setTimeout(() => {
              if (event.defaultPrevented) return;
              const report = { kind: "blocked", url, directive };
              if (post(report)) state.blocked.push(report);
            }, 0);
          }, true);
        })();
        """

    /// The ports the Fetch standard bars ("bad ports"): the engine refuses a navigation to one
    /// of them (or to the address 0.0.0.0) itself, before it asks the view's policy,
    /// and says nothing, so ``observer`` reports a link followed there. (A form posted there is
    /// reported by the policy's `form-action`; a script's `location` change there reaches no
    /// observer: the engine drops it unseen, and it reaches nothing either.)
    package static let barredPorts = [
        1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113,
        115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556,
        563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667,
        6668, 6669, 6679, 6697, 10080,
    ]

    /// The body of an async function run in ``world`` once the load finished: waits for
    /// `document.fonts.ready` (unless the set already reads `loaded`), then loads every
    /// `FontFace` the first screen needs: those whose `unicode-range` meets a character of the
    /// rendered text (its `innerText`, the `content` of the stylesheets' `::before`, `::after`
    /// and `::marker` rules, form fields' values and placeholders) and those whose source is one of
    /// `essentialFonts` (the fonts the manifest marks essential, which the headless renderer
    /// loads too). A face of a subset the page does not use stays `unloaded`.
    /// (`document.fonts.check()` says true even when every font failed, so each face's own
    /// status is what counts.) Waits one timer turn last, so that a navigation the document
    /// started is decided (and, refused, reported) before the answer. Returns the document,
    /// each face with its status, range and whether it was needed, the `@font-face` rules with
    /// their sources, and what ``observer`` saw.
    ///
    /// With `waitsForPage` (the bundle lists `Manifest.Capability.ready`) it first waits for
    /// the page to declare its first screen drawn: the page runtime's `larder.ready()` sets
    /// ``readyAttribute`` on the root element and dispatches ``readyEvent`` on the document.
    package static func readiness(essentialFonts: [String], waitsForPage: Bool = false) -> String {
        let essential = "[" + essentialFonts.map(quoted).joined(separator: ",") + "]"
        return (waitsForPage ? pageReady : "") + """
            // A document whose parser stopped (it started a navigation while loading, which was
            // refused) reads "loaded" and never settles ready: the faces' own loads decide then.
            const fontsReady = () => document.fonts.status === "loaded" ? Promise.resolve() : document.fonts.ready;
            await fontsReady();
            const essential = new Set(\(essential));
            const rules = [];
            // The `content` of every ::before/::after/::marker rule, as the packer collects it:
            // asking each element for its pseudo-elements' computed style instead kept about
            // 0.15 MB in the web process per load (larder-bench render --soak).
            const pseudoContent = [];
            const visit = (list) => {
              for (const rule of list) {
                if (rule.type === CSSRule.FONT_FACE_RULE) {
                  const style = rule.style;
                  rules.push({ family: style.getPropertyValue("font-family"), weight: style.getPropertyValue("font-weight"),
                               style: style.getPropertyValue("font-style"), src: style.getPropertyValue("src"),
                               range: style.getPropertyValue("unicode-range") });
                } else if (rule.type === CSSRule.STYLE_RULE && /:(before|after|marker)\\b/i.test(rule.selectorText || "")) {
                  const content = rule.style.getPropertyValue("content");
                  if (content && content !== "none" && content !== "normal") pseudoContent.push(content);
                  if (rule.cssRules) { try { visit(rule.cssRules); } catch (error) { } }
                } else if (rule.type === CSSRule.IMPORT_RULE) {
                  try { if (rule.styleSheet) visit(rule.styleSheet.cssRules); } catch (error) { }
                } else if (rule.cssRules) {
                  try { visit(rule.cssRules); } catch (error) { }
                }
              }
            };
            for (const sheet of document.styleSheets) { try { visit(sheet.cssRules); } catch (error) { } }
            const text = new Set();
            const add = (value) => { for (const character of String(value)) text.add(character.codePointAt(0)); };
            if (document.body) {
              add(document.body.innerText || "");
              const fields = document.body.querySelectorAll("input, textarea");
              for (let index = 0; index < Math.min(fields.length, 20000); index++) {
                add(fields[index].value || "");
                add(fields[index].placeholder || "");
              }
            }
            for (const content of pseudoContent) add(content);
            const meets = (range) => {
              const spans = String(range || "U+0-10FFFF").split(",").map((item) => {
                const [low, high] = item.trim().replace(/^U\\+/i, "").split("-");
                if (low.includes("?")) return [parseInt(low.replace(/\\?/g, "0"), 16), parseInt(low.replace(/\\?/g, "F"), 16)];
                return [parseInt(low, 16), parseInt(high || low, 16)];
              });
              for (const code of text) { for (const [low, high] of spans) { if (code >= low && code <= high) return true; } }
              return false;
            };
            const unquote = (family) => family.replace(/^["']|["']$/g, "");
            const sources = (face) => {
              const rule = rules.find((rule) => unquote(rule.family) === unquote(face.family) && (rule.weight || "normal") === String(face.weight)
                && (rule.style || "normal") === String(face.style) && (rule.range || "U+0-10FFFF") === (face.unicodeRange || "U+0-10FFFF"));
              return rule ? [...rule.src.matchAll(/url\\(["']?([^"')]+)["']?\\)/g)].map((match) => match[1]) : [];
            };
            const faces = [];
            document.fonts.forEach((face) => faces.push(face));
            const needed = faces.filter((face) => meets(face.unicodeRange) || sources(face).some((url) => essential.has(url)));
            await Promise.allSettled(needed.map((face) => face.load()));
            await fontsReady();
            // A navigation started while the document loaded is an engine timer (0 s) that may
            // not have run yet when this script began: a timer set now runs after it, so its
            // policy decision (a refusal this load's report lists) reaches the renderer first.
            await new Promise((resolve) => setTimeout(resolve, 0));
            const state = window.__larder || { errors: [], blocked: [], hints: [] };
            if (state.scan) state.scan();
            return {
              href: location.href, visibility: document.visibilityState,
              faces: faces.map((face) => ({ family: face.family, weight: String(face.weight), style: String(face.style),
                                            range: String(face.unicodeRange || ""), status: face.status, needed: needed.includes(face) })),
              rules, errors: state.errors, blocked: state.blocked, hints: state.hints,
            };
            """
    }

    /// The attribute `larder.ready()` sets on the root element.
    package static let readyAttribute = "data-larder-ready"
    /// The event `larder.ready()` dispatches on the document.
    package static let readyEvent = "larder:ready"
    /// The event dispatched on the document once a reset loaded the entry again.
    package static let resetEvent = "larder:reset"

    /// Waits until the page declared its first screen drawn (``readyAttribute``, or
    /// ``readyEvent`` once it does).
    static let pageReady = """
        await new Promise((resolve) => {
          if (document.documentElement && document.documentElement.hasAttribute(\(quoted(readyAttribute)))) return resolve();
          document.addEventListener(\(quoted(readyEvent)), () => resolve(), { once: true });
        });

        """

    /// A statement that dispatches `name` as a `CustomEvent` on `target` with `detail` (JSON).
    package static func dispatch(_ name: String, on target: String, detail json: String) -> String {
        "\(target).dispatchEvent(new CustomEvent(\(quoted(name)), { detail: \(json) })); undefined"
    }

    /// Installed at document start in the page's own world, top frame: the presentation's
    /// context (`json`, an object of JSON values) as `window.larder.context`, frozen, before the
    /// page's first script runs.
    package static func context(_ json: String) -> String {
        "window.larder = { context: Object.freeze(\(json)) };"
    }

    /// Run in the page when a presentation shows: `window.larder.context` becomes `json`, and
    /// the document hears a `larder:context` event with it as `detail`.
    package static func contextChange(_ json: String) -> String {
        """
        if (typeof window.larder !== "object" || window.larder === null) window.larder = {};
        window.larder.context = Object.freeze(\(json));
        \(dispatch("larder:context", on: "document", detail: json))
        """
    }

    /// `text` as a JavaScript string literal.
    package static func quoted(_ text: String) -> String {
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
