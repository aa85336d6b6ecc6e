#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SourceTree {
    /// Where `folder` is inside the source folder `root`, as a bundle path: nil when it is not
    /// inside, `""` when it is `root` itself. Both are resolved (`realpath(3)`: `.`, `..` and
    /// links), a folder that does not exist yet through its nearest existing parent.
    public static func bundlePath(of folder: String, inside root: String) -> String? {
        guard let root = resolved(root), let folder = resolved(folder) else { return nil }
        if folder == root { return "" }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return folder.hasPrefix(prefix) ? String(folder.dropFirst(prefix.count)) : nil
    }

    /// The real path of `path`, or of its nearest existing parent followed by the rest (where
    /// `..` after a missing folder is its parent: it will be a real folder); nil when it cannot
    /// be resolved (a parent that is a file, a folder that cannot be searched).
    private static func resolved(_ path: String) -> String? {
        var missing: [Substring] = []
        var existing = Substring(path.isEmpty ? "." : path)
        while true {
            if let real = realpath(String(existing), nil) {
                defer { free(real) }
                var parts = String(cString: real).split(separator: "/")
                for part in missing.reversed() where part != "." && !part.isEmpty {
                    if part == ".." { _ = parts.popLast() } else { parts.append(part) }
                }
                return "/" + parts.joined(separator: "/")
            }
            guard errno == ENOENT else { return nil }
            if let slash = existing.lastIndex(of: "/") {
                missing.append(existing[existing.index(after: slash)...])
                existing = slash == existing.startIndex ? "/" : existing[..<slash]
            } else {
                missing.append(existing)
                existing = "."
            }
        }
    }
}
