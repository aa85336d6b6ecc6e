import LarderFormat

/// The files two manifests differ in, by bundle path: added, removed, and changed (same path,
/// another digest). A file whose digest is unchanged is the same object, whatever else moved.
public struct ManifestDifference: Sendable, Equatable {
    /// One path in both manifests with different content.
    public struct Change: Sendable, Equatable {
        public var old: Manifest.File
        public var new: Manifest.File
        public var path: String { new.path }
    }

    /// In the new manifest only, in path order.
    public var added: [Manifest.File]
    /// In the old manifest only, in path order.
    public var removed: [Manifest.File]
    /// In both with another digest, in path order.
    public var changed: [Change]

    /// - Complexity: O(*n* + *m*): both file lists are sorted by path.
    public init(old: Manifest, new: Manifest) {
        added = []
        removed = []
        changed = []
        var oldIndex = old.files.startIndex
        var newIndex = new.files.startIndex
        while oldIndex < old.files.endIndex || newIndex < new.files.endIndex {
            guard oldIndex < old.files.endIndex else {
                added.append(new.files[newIndex])
                newIndex += 1
                continue
            }
            guard newIndex < new.files.endIndex else {
                removed.append(old.files[oldIndex])
                oldIndex += 1
                continue
            }
            let before = old.files[oldIndex]
            let after = new.files[newIndex]
            if before.path == after.path {
                if before.digest != after.digest { changed.append(Change(old: before, new: after)) }
                oldIndex += 1
                newIndex += 1
            } else if BundlePath.precedes(before.path, after.path) {
                removed.append(before)
                oldIndex += 1
            } else {
                added.append(after)
                newIndex += 1
            }
        }
    }

    /// Nothing differs by path and digest.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }
}
