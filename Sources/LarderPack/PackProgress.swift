/// How far ``Packer`` is in writing an archive: the source bytes archived so far (files read
/// and compressed, rewritten files and subset fonts counted at their packed size) of the
/// bundle's total. Reported through ``PackOptions/progress``.
public struct PackProgress: Sendable, Equatable {
    /// Source bytes archived so far.
    public var bytes: Int64
    /// Every source byte the archive will hold.
    public var totalBytes: Int64

    public init(bytes: Int64, totalBytes: Int64) {
        self.bytes = bytes
        self.totalBytes = totalBytes
    }
}
