/// What one load of a page did, from the start of ``RendererCore/load(_:visible:)`` to
/// ready.
public struct PageLoadReport: Sendable, Equatable {
    /// The document loaded: the entry's bundle path (or the URL of a page loaded by URL).
    public var document: String
    /// Every scheme request answered during the load, in order.
    public var requests: [ServedRequest]
    /// Every `FontFace` of the document once ready (all `loaded` after a successful load).
    public var fonts: [FontFaceReport]
    /// Remote requests, navigations, popups, downloads and link hints the content made and the
    /// policy blocked during the load.
    public var blocked: [BlockedRequest]
    /// Dialogs the content opened during the load, each answered at once.
    public var dialogs: [PageDialog]
    /// From the start of the load to ready.
    public var readyAfter: Duration

    /// Bytes served by the two schemes.
    public var bytes: Int64 { requests.reduce(0) { $0 + Int64($1.bytes) } }

    /// Creates a report.
    public init(
        document: String, requests: [ServedRequest], fonts: [FontFaceReport], blocked: [BlockedRequest], dialogs: [PageDialog] = [],
        readyAfter: Duration
    ) {
        self.document = document
        self.requests = requests
        self.fonts = fonts
        self.blocked = blocked
        self.dialogs = dialogs
        self.readyAfter = readyAfter
    }
}

/// One request to the `larder:` or `larder-font:` scheme and its answer.
public struct ServedRequest: Sendable, Equatable {
    /// The URL requested.
    public var url: String
    /// The HTTP status answered: 200, or the error's (400 malformed, 403 another bundle's
    /// files, 404 not in the bundle or cache, 500 corrupt object or storage failure).
    public var status: Int
    /// Body bytes answered (0 for errors).
    public var bytes: Int
    /// Why it failed, for an error answer.
    public var error: String?

    /// Creates a record.
    public init(url: String, status: Int, bytes: Int, error: String? = nil) {
        self.url = url
        self.status = status
        self.bytes = bytes
        self.error = error
    }
}

/// One `FontFace` of a document and how its load went.
public struct FontFaceReport: Sendable, Equatable {
    /// The family, without quotes.
    public var family: String
    /// The weight (`400`, `700`, `normal`…).
    public var weight: String
    /// The style (`normal`, `italic`…).
    public var style: String
    /// `loaded`, `error`, `loading` or `unloaded` (the `FontFace.status` of the page).
    public var status: String
    /// The URLs of its `@font-face` `src`, when the page's style sheets name them.
    public var sources: [String]
    /// Its `unicode-range` (`U+0-10FFFF` when the rule has none).
    public var unicodeRange: String
    /// The first screen needs it: its range meets a character of the rendered text, or its
    /// source is a font the manifest marks essential. A face not needed may stay `unloaded`.
    public var needed: Bool

    /// Creates a record.
    public init(
        family: String, weight: String, style: String, status: String, sources: [String], unicodeRange: String = "U+0-10FFFF",
        needed: Bool = true
    ) {
        self.family = family
        self.weight = weight
        self.style = style
        self.status = status
        self.sources = sources
        self.unicodeRange = unicodeRange
        self.needed = needed
    }
}

/// Something content tried that would have reached past the bundle, and was refused.
public struct BlockedRequest: Sendable, Equatable {
    /// The URL (as the engine reports it: a blocked subresource may be reduced to its origin;
    /// a refused tunnel is `https://host[:port]`).
    public var url: String
    /// What refused it:
    /// - a Content-Security-Policy directive (`connect-src`, `img-src`, `form-action`…): the
    ///   page asked, the engine refused before any connection;
    /// - `network`: the egress filter refused a connection the policy does not allow (what the
    ///   engine does on its own, or what no directive covers);
    /// - `non-public-address`: the egress filter refused a connection to an allowed origin whose
    ///   name resolves to an address not on the public internet (loopback, private, link-local…);
    /// - `too-many-connections`: the egress filter refused a connection because the engine
    ///   already held as many as it may (``url`` says what it asked for);
    /// - `navigation` (a frame leaving the bundle), `form-submission`, `popup` (a new window),
    ///   `download`;
    /// - `preconnect`, `dns-prefetch`, `prefetch`, `prerender`: a link hint to a remote host,
    ///   which the engine never follows.
    public var reason: String

    /// Creates a record.
    public init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }
}

/// An uncaught script error in a page.
public struct ScriptError: Sendable, Equatable {
    /// The error's message.
    public var message: String
    /// The script's URL.
    public var source: String
    /// Line and column, 0 when unknown.
    public var line: Int
    public var column: Int

    /// Creates a record.
    public init(message: String, source: String, line: Int, column: Int) {
        self.message = message
        self.source = source
        self.line = line
        self.column = column
    }
}

/// A dialog a page opened (`alert`, `confirm`, `prompt`, `beforeunload`, `print`), answered at
/// once as a user who says no would: nothing waits for a person who is not there.
public struct PageDialog: Sendable, Equatable {
    /// `alert`, `confirm` (answered false), `prompt` (answered null), `beforeunload` (the page
    /// is left) or `print` (nothing printed).
    public var kind: String
    /// The text the page gave (empty for `print`).
    public var message: String

    /// Creates a record.
    public init(kind: String, message: String) {
        self.kind = kind
        self.message = message
    }
}
