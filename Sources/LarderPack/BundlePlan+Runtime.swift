import LarderFormat

extension BundlePlan {
    /// The page runtime as the packer adds it: its bundle path, bytes and analysis.
    struct AddedRuntime {
        var path: String
        var bytes: [UInt8]
        var analysis: FileAnalysis
    }

    /// Adds the page runtime (``PageRuntime``) to the tree at ``PageRuntime/path`` when
    /// `configuration` asks for it (`"runtime": true`).
    /// - Returns: what was added, nil when the switch is off.
    /// - Throws: ``PackFailure`` with ``PackError/Code/invalidConfiguration`` when the folder has
    ///   a file of its own at that path: the packer would replace it unseen.
    static func addRuntime(_ configuration: BundleConfiguration, to tree: inout SourceTree) throws(PackFailure) -> AddedRuntime? {
        guard configuration.runtime else { return nil }
        let path = PageRuntime.path
        guard !tree.files.contains(where: { $0.path == path }) else {
            throw PackFailure([
                PackError(
                    .invalidConfiguration,
                    "\"runtime\": true adds the page runtime as '\(path)', and the folder has its own '\(path)': "
                        + "remove that file (import the runtime the packer adds), or set \"runtime\" to false",
                    path: path)
            ])
        }
        let bytes = PageRuntime.scriptBytes
        let size = Int64(bytes.count)
        tree.files.append(SourceFile(path: path, location: "", size: size))
        tree.files.sort { BundlePath.precedes($0.path, $1.path) }
        return AddedRuntime(path: path, bytes: bytes, analysis: FileAnalysis(digest: SHA256Hasher.hash(bytes), size: size, edits: [], stamp: nil))
    }
}
