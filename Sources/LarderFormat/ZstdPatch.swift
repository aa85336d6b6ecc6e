import CZstd

/// A patch from one object to another: one zstd frame of the new object compressed with the old
/// object as its reference prefix (`ZSTD_CCtx_refPrefix`, what `zstd --patch-from` does), with a
/// window that covers both. Applying it needs the old object's bytes and nothing else.
public enum ZstdPatch {
    /// The compression level patches are made at: zstd's highest (`--ultra -22`). Patches are
    /// made once at publish time and small objects dominate, so the slowest level is cheap.
    public static let level: Int32 = 22

    /// The window a patch from `base` to `target` needs, as a power of two: both fit in it, so
    /// every byte of the base stays a possible match while the target is written.
    /// - Returns: at least `ZSTD_WINDOWLOG_MIN` (10).
    public static func windowLog(base: Int, target: Int) -> Int {
        let needed = max(1, base + target)
        var log = 10
        while (1 << log) < needed && log < 62 { log += 1 }
        return log
    }

    /// Makes the patch from `base` to `target`.
    /// - Parameters:
    ///   - base: the object a device holds (the reference).
    ///   - target: the object it needs.
    ///   - limits: a patch whose window would pass ``PatchLimits/maximumWindowLog`` is not made
    ///     (a device would refuse it).
    /// - Returns: one zstd frame that states its content size.
    /// - Throws: ``PatchError/Code/limitExceeded`` past the window bound, or ``PatchError/Code/library``.
    public static func make(from base: [UInt8], to target: [UInt8], limits: PatchLimits = PatchLimits()) throws(PatchError) -> [UInt8] {
        let log = windowLog(base: base.count, target: target.count)
        guard log <= limits.maximumWindowLog, Int64(target.count) <= limits.maximumOutputBytes else {
            throw PatchError(.limitExceeded, "a patch from \(base.count) to \(target.count) bytes needs a window of 2^\(log) bytes")
        }
        let context = try ZstdCompressionContext()
        try context.set(ZSTD_c_compressionLevel, level)
        try context.set(ZSTD_c_windowLog, Int32(log))
        try context.set(ZSTD_c_contentSizeFlag, 1)
        return try context.compress(target, prefix: base)
    }

    /// Applies a patch made by ``make(from:to:limits:)``: decodes exactly `outputSize` bytes
    /// from `patch` with `base` as the reference, and nothing past them.
    ///
    /// The caller checks the result's digest: a patch that decodes is not yet the object.
    /// - Parameters:
    ///   - patch: one zstd frame; a second frame or trailing bytes are refused.
    ///   - base: the object the patch was made from, as the cache's verified read gives it.
    ///   - outputSize: the size the manifest states for the object the patch makes.
    ///   - limits: bounds on the patch, its window and its output.
    /// - Returns: `outputSize` bytes.
    /// - Throws: ``PatchError``: ``PatchError/Code/limitExceeded`` past a bound,
    ///   ``PatchError/Code/sizeMismatch`` for a frame that states or decodes to another size,
    ///   ``PatchError/Code/damaged`` for anything libzstd refuses.
    /// - Complexity: O(*p* + *n*) for a patch of *p* bytes and *n* output bytes; memory is the
    ///   output and the decoder's bounded window tables.
    public static func apply(_ patch: [UInt8], to base: [UInt8], outputSize: Int64, limits: PatchLimits = PatchLimits()) throws(PatchError)
        -> [UInt8]
    {
        guard Int64(patch.count) <= limits.maximumPatchBytes else {
            throw PatchError(.limitExceeded, "the patch has \(patch.count) bytes; at most \(limits.maximumPatchBytes) are accepted")
        }
        guard outputSize >= 0, outputSize <= limits.maximumOutputBytes else {
            throw PatchError(.limitExceeded, "an object of \(outputSize) bytes is not made from a patch (at most \(limits.maximumOutputBytes))")
        }
        let window = try frameWindow(patch, contentSize: outputSize)
        guard window <= Int64(1) << limits.maximumWindowLog else {
            throw PatchError(.limitExceeded, "the patch asks for a window of \(window) bytes; at most 2^\(limits.maximumWindowLog) are accepted")
        }
        let stated = patch.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        if stated == ZSTD_CONTENTSIZE_ERROR { throw PatchError(.damaged, "the patch does not start with a zstd frame header") }
        if stated != ZSTD_CONTENTSIZE_UNKNOWN, stated != UInt64(outputSize) {
            throw PatchError(.sizeMismatch, "the patch makes \(stated) bytes; the manifest says \(outputSize)")
        }
        // One byte more than the object: a frame that writes it is longer than the manifest says.
        var output = [UInt8](repeating: 0, count: Int(outputSize) + 1)
        let produced = try ZstdDecompressionPool.withContext { (context) throws(PatchError) -> Int in
            try context.set(ZSTD_d_windowLogMax, Int32(limits.maximumWindowLog))
            let decoded = base.withUnsafeBytes { base in
                patch.withUnsafeBytes { patch in
                    output.withUnsafeMutableBytes { output in
                        Result { () throws(PatchError) -> Int in
                            try Zstd.check(ZSTD_DCtx_refPrefix(context.context, base.baseAddress, base.count), "ZSTD_DCtx_refPrefix")
                            return try decodeOneFrame(context, from: patch, into: output)
                        }
                    }
                }
            }
            return try decoded.get()
        }
        guard produced == Int(outputSize) else {
            throw PatchError(.sizeMismatch, "the patch makes \(produced == output.count ? "more than \(outputSize)" : "\(produced)") bytes; the manifest says \(outputSize)")
        }
        output.removeLast()
        return output
    }

    /// The window a frame asks for (RFC 8878, 3.1.1.1): its Window_Descriptor, or for a
    /// single-segment frame its content size. libzstd decodes a single-segment frame straight
    /// into the output without checking `ZSTD_d_windowLogMax`, so the bound is checked here for
    /// both kinds.
    static func frameWindow(_ patch: [UInt8], contentSize: Int64) throws(PatchError) -> Int64 {
        guard patch.count >= 6, patch[0] == 0x28, patch[1] == 0xB5, patch[2] == 0x2F, patch[3] == 0xFD else {
            throw PatchError(.damaged, "the patch does not start with a zstd frame")
        }
        let descriptor = patch[4]
        if descriptor & 0x20 != 0 { return contentSize }
        let exponent = Int64(patch[5] >> 3)
        let base = Int64(1) << (10 + exponent)
        return base + base / 8 * Int64(patch[5] & 7)
    }

    /// Runs `ZSTD_decompressStream` until the frame ends, the output is full, or no progress
    /// is made; every call consumes input or produces output, so the loop ends within
    /// `input + output + 2` calls.
    private static func decodeOneFrame(
        _ context: ZstdDecompressionContext, from patch: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws(PatchError) -> Int {
        var input = ZSTD_inBuffer(src: patch.baseAddress, size: patch.count, pos: 0)
        var out = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        for _ in 0...(patch.count + output.count + 2) {
            let before = (input.pos, out.pos)
            let hint = try Zstd.check(ZSTD_decompressStream(context.context, &out, &input), "ZSTD_decompressStream", as: .damaged)
            if hint == 0 {
                guard input.pos == input.size else { throw PatchError(.damaged, "the patch has bytes after its frame") }
                return out.pos
            }
            if out.pos == out.size { return out.pos }  // past the object's size
            if (input.pos, out.pos) == before {
                throw PatchError(.damaged, "the patch ends before its frame does (\(patch.count) bytes)")
            }
        }
        throw PatchError(.damaged, "the patch did not finish decoding")
    }
}
