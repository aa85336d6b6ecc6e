import LarderFormat

/// The text files of a new flow (`larder init`): one screen that draws with the flow's font,
/// says it is ready, tracks that it was viewed, and completes or dismisses through the page
/// runtime.
extension FlowScaffold {
    /// `larder.json`: the runtime added by the packer, the `ready` capability, `latin` subsets,
    /// the licence packed with its font, the types left out.
    static func configuration(name: String) -> String {
        let quotedName = String(decoding: JSONValue.string(name).canonicalBytes, as: UTF8.self)
        return """
            {
              "name": \(quotedName),
              "entry": "index.html",
              "renderer": {"protocol": 1, "capabilities": ["prepare", "visibility", "ready"]},
              "fonts": {"subsets": ["latin"]},
              "include": ["fonts/LICENSE-*.txt"],
              "exclude": ["\(PageRuntime.typesPath)", "tsconfig.json"],
              "runtime": true
            }

            """
    }

    static let entry = """
        <!doctype html>
        <html lang="en">
        <head>
          <meta charset="utf-8">
          <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
          <title>A new flow</title>
          <link rel="stylesheet" href="css/flow.css">
          <script type="module" src="js/flow.js"></script>
        </head>
        <body>
          <main class="screen">
            <h1>Hello from your new flow</h1>
            <p>Edit index.html, css/flow.css and js/flow.js, and watch them with 'larder preview'.</p>
            <button type="button" class="primary" data-action="complete">Continue</button>
            <button type="button" class="plain" data-action="dismiss">Not now</button>
          </main>
        </body>
        </html>

        """

    static let stylesheet = """
        @font-face {
          font-family: "Flow Sans";
          src: url("../fonts/\(fontFile)") format("truetype");
          font-weight: 400;
          font-style: normal;
        }

        :root { color-scheme: light; }

        body {
          margin: 0;
          min-height: 100vh;
          display: grid;
          place-items: center;
          background: #f6f4ee;
          color: #1d2a22;
          font-family: "Flow Sans", sans-serif;
        }

        .screen { max-width: 340px; padding: 32px 24px; text-align: center; }
        h1 { font-size: 28px; line-height: 1.2; margin: 0 0 12px; }
        p { font-size: 16px; line-height: 1.5; margin: 0 0 28px; color: #4a5a50; }

        button {
          display: block;
          width: 100%;
          margin-top: 10px;
          padding: 14px;
          border: 0;
          border-radius: 14px;
          font: inherit;
          font-size: 17px;
        }

        .primary { background: #1f7a4d; color: #fff; }
        .plain { background: transparent; color: #1f7a4d; }

        """

    static let script = """
        // The flow's script: the page runtime (larder.js, which the packer adds: "runtime": true
        // in larder.json) speaks to the app. Its types are in larder.d.ts.
        import { larder } from "../larder.js";

        // The first screen is drawn: the renderer waits for this ("ready" in larder.json).
        larder.ready();
        // Sent when the flow is shown (held while the app prepares it hidden).
        larder.track("flow:viewed").catch((error) => console.error(error.message));

        document.addEventListener("click", (event) => {
          const button = event.target.closest("[data-action]");
          if (!button) return;
          const sent = button.dataset.action === "complete" ? larder.complete() : larder.dismiss();
          sent.catch((error) => console.error(error.message));
        });

        """
}
