import CCrypto
import Foundation

/// What an S3 ETag says about the bytes stored: for an object put in one request, and not
/// encrypted with a key the service manages per object (SSE-KMS, SSE-C), it is the MD5 of
/// the body the service kept (AWS, MinIO, R2, Ceph RGW, GCS's XML API, moto); a multipart
/// upload's ETag ends in `-<parts>`, and an encrypted object's is some other value. Comparing
/// the first kind with the MD5 of the body sent tells a service, gateway or proxy that
/// acknowledged a PUT but kept other bytes.
package enum S3ETag {
    /// The MD5 an answer's ETag states, nil when it states none: not 32 hex digits (a
    /// multipart `-N` ETag, a weak `W/` one, none at all), or the object encrypted with
    /// SSE-KMS or SSE-C (`x-amz-server-side-encryption: aws:kms…`,
    /// `x-amz-server-side-encryption-customer-algorithm`).
    package static func statedMD5(_ answer: S3Answer) -> [UInt8]? {
        let encryption = answer.headers["x-amz-server-side-encryption"]?.lowercased() ?? ""
        guard !encryption.hasPrefix("aws:kms"), answer.headers["x-amz-server-side-encryption-customer-algorithm"] == nil else { return nil }
        return answer.etag.flatMap(md5(etag:))
    }

    /// The 16 bytes of an ETag of 32 hex digits, quoted or not; nil for any other.
    package static func md5(etag: String) -> [UInt8]? {
        var text = Substring(etag.trimmingCharacters(in: .whitespaces))
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        guard text.utf8.count == 32 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for character in text.utf8 {
            guard let nibble = hexValue(character) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    /// Lowercase hex, for messages.
    package static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A streaming MD5 on libcrypto's EVP interface (`EVP_DigestInit_ex` with `EVP_md5`): only
/// to compare with an ETag, never as a digest of Larder's own. Owns its `EVP_MD_CTX`.
final class MD5Hasher {
    private let context: OpaquePointer

    init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        self.context = context
        guard EVP_DigestInit_ex(context, EVP_md5(), nil) == 1 else { fatalError("EVP_DigestInit_ex(md5) failed: libcrypto is unusable") }
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// The MD5 of everything added (call once).
    func finalize() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        return Array(output.prefix(Int(length)))
    }

    /// The MD5 of `bytes`.
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        let hasher = MD5Hasher()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }
}
