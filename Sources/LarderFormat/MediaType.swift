/// What a file is for in a rendered flow.
public enum FileRole: String, Sendable, CaseIterable, Codable {
    case document, style, script, font, image, data
}

/// Media types and roles by file extension, for the manifest and for serving files.
public enum MediaType {
    private static let table: [String: (String, FileRole)] = [
        "html": ("text/html; charset=utf-8", .document),
        "htm": ("text/html; charset=utf-8", .document),
        "css": ("text/css; charset=utf-8", .style),
        "js": ("text/javascript; charset=utf-8", .script),
        "mjs": ("text/javascript; charset=utf-8", .script),
        "json": ("application/json", .data),
        "map": ("application/json", .data),
        "txt": ("text/plain; charset=utf-8", .data),
        "md": ("text/markdown; charset=utf-8", .data),
        "xml": ("application/xml", .data),
        "webmanifest": ("application/manifest+json", .data),
        "wasm": ("application/wasm", .script),
        "woff2": ("font/woff2", .font),
        "woff": ("font/woff", .font),
        "ttf": ("font/ttf", .font),
        "otf": ("font/otf", .font),
        "eot": ("application/vnd.ms-fontobject", .font),
        "png": ("image/png", .image),
        "jpg": ("image/jpeg", .image),
        "jpeg": ("image/jpeg", .image),
        "gif": ("image/gif", .image),
        "webp": ("image/webp", .image),
        "avif": ("image/avif", .image),
        "svg": ("image/svg+xml", .image),
        "ico": ("image/x-icon", .image),
        "mp4": ("video/mp4", .data),
        "webm": ("video/webm", .data),
        "mp3": ("audio/mpeg", .data),
        "wav": ("audio/wav", .data),
        "lottie": ("application/zip", .data),
    ]

    /// The lowercased extension of a path's last segment, or "" when it has none.
    public static func fileExtension(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The media type and role for a bundle path; unknown extensions are
    /// `application/octet-stream` data.
    public static func classify(_ path: String) -> (mediaType: String, role: FileRole) {
        table[fileExtension(of: path)] ?? ("application/octet-stream", .data)
    }

    /// Whether the file's bytes are already compressed (images, fonts in WOFF/WOFF2, media).
    public static func isPrecompressed(_ path: String) -> Bool {
        switch fileExtension(of: path) {
        case "png", "jpg", "jpeg", "gif", "webp", "avif", "woff", "woff2", "mp4", "webm", "mp3", "lottie": true
        default: false
        }
    }
}
