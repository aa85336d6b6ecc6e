import CZlib
import Foundation

/// Web content as Debian packages it, for tests and benchmarks on real-world sources (what
/// `Tools/setup.sh` installs): each copied to a scratch folder with its symbolic links followed
/// (Debian links fonts and scripts in from other packages; the packer refuses links), with a
/// small entry page where the package has none and a `larder.json` where it needs one.
public enum RealWorldSource: String, CaseIterable, Sendable, CustomStringConvertible {
    case fontAwesome = "font-awesome-4.7"
    case bootstrap4 = "bootstrap4"
    case jqueryUITheme = "jquery-ui-theme-base"
    case mathJax = "mathjax-2.7"
    case readTheDocsTheme = "sphinx-rtd-theme"
    case pythonDocs = "python3-doc"

    public var description: String { rawValue }

    /// The Debian package that installs it.
    public var package: String {
        switch self {
        case .fontAwesome: "fonts-font-awesome"
        case .bootstrap4: "libjs-bootstrap4"
        case .jqueryUITheme: "libjs-jquery-ui-theme-base"
        case .mathJax: "libjs-mathjax"
        case .readTheDocsTheme: "sphinx-rtd-theme-common"
        case .pythonDocs: "python3-doc"
        }
    }

    /// Where the package puts the content.
    public var installedPath: String {
        switch self {
        case .fontAwesome: "/usr/share/fonts-font-awesome"
        case .bootstrap4: "/usr/share/javascript/bootstrap4"
        case .jqueryUITheme: "/usr/share/javascript/jquery-ui-themes/base"
        case .mathJax: "/usr/share/javascript/mathjax"
        case .readTheDocsTheme: "/usr/share/sphinx_rtd_theme"
        case .pythonDocs: "/usr/share/doc/python3/html"
        }
    }

    /// The entry page written for packages without one (nil: the package has its own).
    var entryPage: String? {
        switch self {
        case .fontAwesome:
            """
            <!doctype html>
            <link rel="preload" as="font" href="fonts/fontawesome-webfont.woff2?v=4.7.0" crossorigin>
            <link rel="stylesheet" href="css/font-awesome.css">
            <p><i class="fa fa-check"></i> Font Awesome <a href="https://fontawesome.com/v4/">4.7</a></p>
            """
        case .bootstrap4:
            """
            <!doctype html>
            <link rel="stylesheet" href="css/bootstrap.min.css">
            <main class="container"><button class="btn btn-primary">Continue</button></main>
            <script src="js/bootstrap.bundle.min.js"></script>
            """
        case .jqueryUITheme:
            """
            <!doctype html>
            <link rel="stylesheet" href="jquery-ui.css">
            <div class="ui-widget ui-widget-content ui-corner-all"><span class="ui-icon ui-icon-check"></span></div>
            """
        case .mathJax:
            """
            <!doctype html>
            <script src="MathJax.js?config=TeX-AMS_CHTML"></script>
            <p>$$e^{i\\pi} + 1 = 0$$</p>
            """
        case .readTheDocsTheme:
            """
            <!doctype html>
            <link rel="stylesheet" href="static/css/theme.css">
            <div class="wy-body-for-nav"><span class="fa fa-home"></span> Read the Docs</div>
            <script src="static/js/theme.js"></script>
            """
        case .pythonDocs:
            nil
        }
    }

    /// The `larder.json` written (nil: none).
    var configuration: String? {
        switch self {
        case .mathJax:
            // Its test pages have broken links on purpose (BADURL); everything else is loaded
            // by MathJax.js by name.
            #"{"name": "mathjax", "exclude": ["test/"], "include": ["config/", "jax/", "extensions/", "fonts/", "localization/", "unpacked/"]}"#
        case .readTheDocsTheme:
            // The Jinja templates at the root are not pages (their URLs are `{{ ... }}`).
            #"{"exclude": ["/breadcrumbs.html", "/footer.html", "/layout.html", "/search.html", "/searchbox.html", "/versions.html"]}"#
        default:
            nil
        }
    }

    /// Copies the installed content to `folder` (which must not exist), following links, and
    /// adds the entry page and `larder.json`. Debian compresses the Python docs' changelog page
    /// (dh_compress), which the other pages link to: it is restored as upstream ships it.
    /// - Throws: ``RealWorldSourceError`` when the package is not installed or a copy fails.
    public func prepare(at folder: String) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: installedPath, isDirectory: &isFolder), isFolder.boolValue else {
            throw RealWorldSourceError("\(installedPath) is missing: install \(package) (bash Tools/setup.sh)")
        }
        try Self.copyFollowingLinks(installedPath, to: folder)
        if let entryPage { try Data(entryPage.utf8).write(to: URL(fileURLWithPath: folder + "/index.html")) }
        if let configuration { try Data(configuration.utf8).write(to: URL(fileURLWithPath: folder + "/larder.json")) }
        if self == .pythonDocs {
            let compressed = folder + "/whatsnew/changelog.html.gz"
            if FileManager.default.fileExists(atPath: compressed) {
                try Data(try Self.gunzip(compressed)).write(to: URL(fileURLWithPath: folder + "/whatsnew/changelog.html"))
                try FileManager.default.removeItem(atPath: compressed)
            }
        }
    }

    private static func copyFollowingLinks(_ source: String, to destination: String) throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: destination, withIntermediateDirectories: true)
        for name in try manager.contentsOfDirectory(atPath: source) {
            let from = source + "/" + name
            let to = destination + "/" + name
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: from, isDirectory: &isFolder) else {
                throw RealWorldSourceError("\(from) is a broken link")
            }
            if isFolder.boolValue {
                try copyFollowingLinks(from, to: to)
            } else {
                try manager.copyItem(atPath: URL(fileURLWithPath: from).resolvingSymlinksInPath().path, toPath: to)
            }
        }
    }

    /// The bytes of a gzip file (zlib's `gzopen`/`gzread`).
    static func gunzip(_ path: String) throws -> [UInt8] {
        guard let file = gzopen(path, "rb") else { throw RealWorldSourceError("cannot open \(path)") }
        defer { gzclose(file) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { gzread(file, $0.baseAddress, UInt32($0.count)) }
            guard count >= 0 else { throw RealWorldSourceError("cannot inflate \(path)") }
            if count == 0 { return out }
            out.append(contentsOf: buffer[0..<Int(count)])
        }
    }
}

/// A real-world source that cannot be prepared.
public struct RealWorldSourceError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
