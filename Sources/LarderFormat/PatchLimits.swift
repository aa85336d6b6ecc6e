/// The bounds a device applies a patch within, so that a hostile origin cannot make it read,
/// allocate or write more than an ordinary object fetch would.
public struct PatchLimits: Sendable, Equatable {
    /// The largest patch body accepted (a patch larger than half its object is never published).
    public var maximumPatchBytes: Int64
    /// The largest zstd window, as a power of two: the base and the output together (the
    /// publisher sets the window to cover both, ``ZstdPatch/windowLog(base:target:)``).
    public var maximumWindowLog: Int
    /// The largest object made from a patch; larger objects are fetched whole.
    public var maximumOutputBytes: Int64

    /// 16 MiB patches, a 128 MiB window (2^27, libzstd's default decoder bound), 64 MiB objects.
    public init(maximumPatchBytes: Int64 = 16 << 20, maximumWindowLog: Int = 27, maximumOutputBytes: Int64 = 64 << 20) {
        self.maximumPatchBytes = maximumPatchBytes
        self.maximumWindowLog = maximumWindowLog
        self.maximumOutputBytes = maximumOutputBytes
    }
}
