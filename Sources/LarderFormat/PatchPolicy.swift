/// What `larder publish` makes patches from and which it keeps (Docs/Patches.md).
public enum PatchPolicy {
    /// How many earlier revisions each object is patched from: a device that skipped up to
    /// this many revisions still moves patches.
    public static let previousRevisions = 3

    /// A patch is kept when it and its entry in the patch index together are smaller than this
    /// share of what the object's fetch moves today (its gzip copy, or the object when it has
    /// none): below half, the patch saves more than the extra request and the apply cost, and
    /// the index never makes an update move more than it would without patches.
    public static let keptFraction = 0.5

    /// The bounds a patch is made within: the ones every device applies (`PatchLimits`).
    public static let limits = PatchLimits()

    /// Whether a patch is worth publishing for an object whose fetch moves `objectTravel` bytes.
    /// - Parameters:
    ///   - patchSize: the patch's bytes.
    ///   - entrySize: the bytes its entry adds to the patch index
    ///     (`PatchIndex.Entry.encodedSize`), 0 to judge the patch alone.
    ///   - objectTravel: the bytes a device moves for the object without the patch (its gzip
    ///     copy, or the object when it has none).
    public static func keeps(patchSize: Int, entrySize: Int = 0, objectTravel: Int64) -> Bool {
        Double(patchSize + entrySize) < Double(objectTravel) * keptFraction
    }
}
