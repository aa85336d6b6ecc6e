import CCrypto
import Foundation

/// A streaming SHA-256 hasher on libcrypto's EVP interface (`EVP_DigestInit_ex`,
/// `EVP_DigestUpdate`, `EVP_DigestFinal_ex`).
///
/// One hasher per thread; it owns its `EVP_MD_CTX` and frees it on `deinit`.
public final class SHA256Hasher {
    private let context: OpaquePointer

    /// Starts an empty hash.
    public init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        self.context = context
        reset()
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Forgets everything hashed so far.
    public func reset() {
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("EVP_DigestInit_ex(sha256) failed: libcrypto is unusable")
        }
    }

    /// Adds bytes to the hash.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Adds bytes to the hash.
    public func update<Bytes: ContiguousBytes>(_ bytes: Bytes) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Returns the digest of everything added and starts again from empty.
    public func finalize() -> Digest {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        reset()
        return Digest(bytes: output.prefix(Int(length)))
    }

    /// The digest of `bytes` in one call (`EVP_Digest`).
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> Digest {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        guard EVP_Digest(base, bytes.count, &output, &length, EVP_sha256(), nil) == 1 else {
            fatalError("EVP_Digest(sha256) failed: libcrypto is unusable")
        }
        return Digest(bytes: output.prefix(Int(length)))
    }

    /// The digest of `bytes` in one call.
    public static func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> Digest {
        bytes.withUnsafeBytes { hash($0) }
    }
}

extension ReadableFile {
    /// Reads the rest of the file, hashing it.
    /// - Returns: the bytes read and their SHA-256.
    public func sizeAndDigest() throws(FormatError) -> (size: Int64, digest: Digest) {
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        var size: Int64 = 0
        while true {
            let count = try read(into: buffer)
            if count == 0 { return (size, hasher.finalize()) }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
        }
    }
}
