import CZstd

/// A zstd compression context (`ZSTD_CCtx`), freed with its owner.
final class ZstdCompressionContext {
    private let context: OpaquePointer

    /// - Throws: ``PatchError/Code/library`` when `ZSTD_createCCtx` cannot allocate.
    init() throws(PatchError) {
        guard let context = ZSTD_createCCtx() else { throw PatchError(.library, "ZSTD_createCCtx could not allocate a context") }
        self.context = context
    }

    deinit { ZSTD_freeCCtx(context) }

    /// `ZSTD_CCtx_setParameter`.
    func set(_ parameter: ZSTD_cParameter, _ value: Int32) throws(PatchError) {
        try Zstd.check(ZSTD_CCtx_setParameter(context, parameter, value), "ZSTD_CCtx_setParameter")
    }

    /// `ZSTD_CCtx_refPrefix` then `ZSTD_compress2`: `input` compressed with `prefix` as the
    /// content before it (the prefix must outlive the call only, which this scope ensures).
    func compress(_ input: [UInt8], prefix: [UInt8]) throws(PatchError) -> [UInt8] {
        let capacity = ZSTD_compressBound(input.count)
        var output = [UInt8](repeating: 0, count: capacity)
        let written = prefix.withUnsafeBytes { prefix in
            input.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { output in
                    Result { () throws(PatchError) -> Int in
                        try Zstd.check(ZSTD_CCtx_refPrefix(context, prefix.baseAddress, prefix.count), "ZSTD_CCtx_refPrefix")
                        return try Zstd.check(
                            ZSTD_compress2(context, output.baseAddress, output.count, input.baseAddress, input.count), "ZSTD_compress2")
                    }
                }
            }
        }
        output.removeSubrange(try written.get()...)
        return output
    }
}

/// A zstd decompression context (`ZSTD_DCtx`), freed with its owner.
/// Sendable so ``ZstdDecompressionPool`` can keep it between uses: one caller uses it at a
/// time (taken from the pool under its lock, given back after).
final class ZstdDecompressionContext: @unchecked Sendable {
    let context: OpaquePointer

    /// - Throws: ``PatchError/Code/library`` when `ZSTD_createDCtx` cannot allocate.
    init() throws(PatchError) {
        guard let context = ZSTD_createDCtx() else { throw PatchError(.library, "ZSTD_createDCtx could not allocate a context") }
        self.context = context
    }

    deinit { ZSTD_freeDCtx(context) }

    /// `ZSTD_DCtx_setParameter`.
    func set(_ parameter: ZSTD_dParameter, _ value: Int32) throws(PatchError) {
        try Zstd.check(ZSTD_DCtx_setParameter(context, parameter, value), "ZSTD_DCtx_setParameter")
    }
}

enum Zstd {
    /// A libzstd return value: a size, or an error code (`ZSTD_isError`, `ZSTD_getErrorName`).
    @discardableResult
    static func check(_ result: Int, _ call: String, as code: PatchError.Code = .library) throws(PatchError) -> Int {
        guard ZSTD_isError(result) != 0 else { return result }
        throw PatchError(code, "\(call) failed: \(String(cString: ZSTD_getErrorName(result)))")
    }
}
