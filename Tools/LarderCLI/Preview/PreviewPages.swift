import Foundation
import LarderFormat

/// The pages and scripts `larder preview` serves besides the flow.
enum PreviewPages {
    /// `<script src="/__larder/bridge.js">` first in the document's `<head>` (or first in the
    /// document when it has none): the bridge is there before the page's own scripts, as a
    /// device's is.
    static func injectBridge(into html: String) -> String {
        let tag = #"<script src="/__larder/bridge.js"></script>"#
        guard let head = html.range(of: "<head", options: .caseInsensitive),
            let close = html[head.upperBound...].firstIndex(of: ">")
        else { return tag + html }
        var out = html
        out.insert(contentsOf: tag, at: out.index(after: close))
        return out
    }

    /// What a flow document shows when the pack failed: each error with its `file:line:column`.
    static func errors(_ errors: [String]) -> String {
        """
        <!doctype html><meta charset="utf-8"><title>Pack failed</title>
        <body style="font: 14px/1.5 monospace; margin: 16px; color: #7a1010; background: #fff5f5">
        <h1 style="font-size: 16px">larder pack failed: fix the source and save</h1>
        <ol id="pack-errors">\(errors.map { "<li>" + escaped($0) + "</li>" }.joined())</ol>
        <script>if (new URLSearchParams(location.search).get("live") !== "0") new EventSource("/__larder/events").onmessage = (event) => { if (JSON.parse(event.data).errors.length === 0) location.reload(); };</script>
        </body>
        """
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The device's bridge, in the flow's frame: `window.webkit.messageHandlers.larder` posts
    /// each message to the preview, which reads it by the host's rules and answers its refusal;
    /// `window.larder.context` is the context the panel set; the panel hears every message.
    static let bridge = """
        (() => {
          let panel = null;
          try { if (parent !== window && parent.larderPreview) panel = parent.larderPreview; } catch (error) { }
          window.larder = { context: Object.freeze(panel ? panel.context : {}) };
          const postMessage = (message) => {
            const json = JSON.stringify(message);
            if (json === undefined) return Promise.reject(new Error("the bridge message has no JSON form (undefined, a function)"));
            return fetch("/__larder/bridge", { method: "POST", body: json }).then((answer) => answer.json()).then((answer) => {
              if (panel) panel.heard(message, answer.refusal || null);
              if (answer.refusal) throw new Error(answer.refusal);
            });
          };
          window.webkit = { messageHandlers: { larder: { postMessage } } };
          document.addEventListener("DOMContentLoaded", () => { if (panel) panel.attached(window); });
        })();
        """

    /// The preview's own page: the flow in a phone-sized frame (`entry` of build `version`,
    /// none while the pack fails), the bridge log, the controls.
    static func shell(entry: String?, version: Int) -> String {
        let source = entry.map { #" src="/flow/\#(escaped($0))""# } ?? ""
        let entryJSON = entry.map { String(decoding: JSONValue.string($0).canonicalBytes, as: UTF8.self) } ?? "null"
        return shellTemplate.replacingOccurrences(of: "FLOW_SOURCE", with: source)
            .replacingOccurrences(of: "FLOW_ENTRY", with: entryJSON).replacingOccurrences(of: "FLOW_VERSION", with: String(version))
    }

    private static let shellTemplate = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>larder preview</title>
        <style>
          body { margin: 0; display: flex; gap: 20px; padding: 20px; font: 13px/1.4 system-ui, sans-serif; background: #eceae4; }
          .device { position: relative; width: 390px; height: 844px; flex: none; border-radius: 28px; overflow: hidden; background: #fff; box-shadow: 0 0 0 10px #222; }
          .device iframe { width: 100%; height: 100%; border: 0; }
          #errors { position: absolute; inset: 0; display: none; overflow: auto; padding: 16px; background: #fff5f5; color: #7a1010; font: 12px/1.5 monospace; }
          #errors.shown { display: block; }
          .panel { flex: 1; min-width: 280px; display: flex; flex-direction: column; gap: 10px; }
          .controls button { font: inherit; padding: 6px 12px; }
          textarea { width: 100%; height: 56px; font: 12px monospace; box-sizing: border-box; }
          #log { margin: 0; padding: 0 0 0 20px; font: 12px/1.5 monospace; overflow: auto; flex: 1; background: #fff; border-radius: 8px; padding: 8px 8px 8px 28px; }
          #log .refused { color: #a11; }
          #status { color: #555; }
        </style></head>
        <body>
          <div class="device"><iframe id="flow" title="The flow"FLOW_SOURCE></iframe><div id="errors" role="alert"></div></div>
          <div class="panel">
            <div id="status">build FLOW_VERSION</div>
            <div class="controls"><button id="hide">Hide</button> <button id="show">Show</button> <button id="reset">Reset</button></div>
            <label>Context (JSON) <textarea id="context">{}</textarea></label>
            <div class="controls"><button id="set-context">Set context</button> <span id="context-error"></span></div>
            <strong>Bridge messages and captures</strong>
            <ol id="log"></ol>
          </div>
        <script>
          const frame = document.getElementById("flow");
          const log = document.getElementById("log");
          let entry = FLOW_ENTRY, version = FLOW_VERSION, sessions = 0;
          const preview = window.larderPreview = {
            context: {}, hidden: false, resetPending: false,
            heard(message, refusal) {
              const line = document.createElement("li");
              line.textContent = (refusal ? "refused " : "") + JSON.stringify(message) + (refusal ? ": " + refusal : "");
              if (refusal) line.className = "refused";
              log.appendChild(line);
              while (log.childNodes.length > 500) log.removeChild(log.firstChild);
              log.scrollTop = log.scrollHeight;
            },
            attached(page) {
              if (preview.hidden) tell(page, "larder:visibility", { visible: false });
              if (preview.resetPending) { preview.resetPending = false; tell(page, "larder:reset", {}); }
            },
          };
          const tell = (page, name, detail) => page.document.dispatchEvent(new page.CustomEvent(name, { detail }));
          const note = (text) => { const line = document.createElement("li"); line.textContent = text; log.appendChild(line); };
          document.getElementById("hide").onclick = () => { preview.hidden = true; tell(frame.contentWindow, "larder:visibility", { visible: false }); note("— hidden"); };
          document.getElementById("show").onclick = () => {
            preview.hidden = false;
            const page = frame.contentWindow;
            page.larder.context = Object.freeze(preview.context);
            tell(page, "larder:context", preview.context);
            tell(page, "larder:visibility", { visible: true, session: "preview-" + (++sessions), journey: "preview", revision: version });
            note("— shown (session preview-" + sessions + ")");
          };
          document.getElementById("reset").onclick = () => {
            preview.hidden = true; preview.resetPending = true;
            frame.src = "/flow/" + entry + "?reset=" + Date.now();
            note("— reset: the entry again, hidden");
          };
          document.getElementById("set-context").onclick = () => {
            const error = document.getElementById("context-error");
            try {
              const value = JSON.parse(document.getElementById("context").value);
              if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("the context is a JSON object");
              preview.context = value;
              const page = frame.contentWindow;
              page.larder.context = Object.freeze(value);
              tell(page, "larder:context", value);
              error.textContent = "";
              note("— context " + JSON.stringify(value));
            } catch (problem) { error.textContent = problem.message; }
          };
          const show = (status) => {
            const errors = document.getElementById("errors");
            errors.textContent = "";
            errors.classList.toggle("shown", status.errors.length > 0);
            if (status.errors.length > 0) {
              const title = document.createElement("strong");
              title.textContent = "larder pack failed:";
              errors.appendChild(title);
              for (const text of status.errors) { const line = document.createElement("div"); line.textContent = text; errors.appendChild(line); }
            }
            document.getElementById("status").textContent = "build " + status.version + (status.errors.length ? " failed" : " packed in " + status.packMilliseconds + " ms")
              + (status.warnings.length ? ", " + status.warnings.length + " warning(s)" : "");
          };
          // "?live=0": no live reload (a snapshot, for a headless browser's screenshot).
          if (new URLSearchParams(location.search).get("live") !== "0") new EventSource("/__larder/events").onmessage = (event) => {
            const status = JSON.parse(event.data);
            show(status);
            if (status.errors.length > 0) return;
            const first = entry === null, changed = status.version !== version;
            entry = status.entry;
            version = status.version;
            if (first) { frame.src = "/flow/" + entry; return; }
            // The same screen again, with the new build.
            if (changed) frame.contentWindow.location.reload();
          };
        </script>
        </body></html>
        """
}
