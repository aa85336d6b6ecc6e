import CZstd
import LarderSystem

/// Decompression contexts kept for the next patch. Making one (`ZSTD_createDCtx`: about 100 kB
/// mapped and touched afresh) cost more than applying a patch to a small file: 23 µs against
/// 6 µs for reading and hashing a 2 kB page (`larder-bench patch`, release). A context is reset
/// (`ZSTD_reset_session_and_parameters`: no prefix, no parameter kept) before each use, and
/// belongs to one caller at a time.
enum ZstdDecompressionPool {
    /// Contexts kept idle at most: one per core of a phone is plenty.
    static let capacity = 4

    private static let idle = Locked<[ZstdDecompressionContext]>([])

    /// Runs `body` with a context that is reset, taken from the pool (or made), and given back
    /// after.
    static func withContext<T>(_ body: (ZstdDecompressionContext) throws(PatchError) -> T) throws(PatchError) -> T {
        let context: ZstdDecompressionContext
        if let kept = idle.withLock({ $0.popLast() }) { context = kept } else { context = try ZstdDecompressionContext() }
        try Zstd.check(ZSTD_DCtx_reset(context.context, ZSTD_reset_session_and_parameters), "ZSTD_DCtx_reset")
        defer { idle.withLock { if $0.count < capacity { $0.append(context) } } }
        return try body(context)
    }
}
