import Foundation
import LarderFormat
import LarderSystem

extension FontCache {
    /// One entry's file, `<folder>/<SHA-256 of its key>`:
    ///
    ///     larder-font-cache 2
    ///     <key, its lines>
    ///     output sha256:<hex> <size> signature <HMAC-SHA-256 hex>
    ///     <the output's bytes>
    ///
    /// The signature (``FontCacheKey/signature(of:)``) covers everything before ` signature`; an
    /// entry without one (written with no key, or by a version before 2, whose first line says 1)
    /// is read as unsigned.
    struct Entry {
        let folder: String
        let name: String
        let key: String

        /// What the file holds.
        enum Lookup {
            /// Its key, digest and size check out and the signature is this user's key's.
            case signed([UInt8])
            /// Its key, digest and size check out, but it is not signed with this user's key.
            case unsigned([UInt8])
            /// Unreadable, cut short, another key's file, or bytes that do not hash to its digest.
            case rejected
            case missing
        }

        var path: String { folder + "/" + name }

        /// The header up to ` signature`, which the signature covers.
        private func signedText(version: Int, digest: Digest, size: Int) -> String {
            "larder-font-cache \(version)\n\(key)\noutput \(digest) \(size)"
        }

        func read(signedWith secret: FontCacheKey?) -> Lookup {
            let content: [UInt8]
            do { content = try ReadableFile(path: path).readAll(limit: 128 << 20) } catch {
                return access(path, F_OK) == 0 ? .rejected : .missing
            }
            for version in [2, 1] {
                let expected = Array("larder-font-cache \(version)\n\(key)\n".utf8)
                guard content.count > expected.count, content.starts(with: expected) else { continue }
                guard let end = content[expected.count...].firstIndex(of: 0x0A) else { return .rejected }
                // "output sha256:<hex> <size>", then " signature <hex>" in version 2.
                let fields = String(decoding: content[expected.count..<end], as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
                guard fields.count == 3 || (version == 2 && fields.count == 5 && fields[3] == "signature"), fields[0] == "output",
                    let digest = try? Digest(parsing: String(fields[1])), let size = Int(fields[2]), size == content.count - end - 1
                else { return .rejected }
                let bytes = Array(content[(end + 1)...])
                guard SHA256Hasher.hash(bytes) == digest else { return .rejected }
                if fields.count == 5, let secret {
                    let signature = secret.signature(of: Array(signedText(version: version, digest: digest, size: size).utf8))
                    if fields[4].utf8.elementsEqual(signature.hex.utf8) { return .signed(bytes) }
                }
                return .unsigned(bytes)
            }
            return .rejected
        }

        /// Writes the entry (replacing any), signed when there is a key.
        func write(_ bytes: [UInt8], signedWith secret: FontCacheKey?) throws(FormatError) {
            let text = signedText(version: 2, digest: SHA256Hasher.hash(bytes), size: bytes.count)
            let signature = secret.map { " signature " + $0.signature(of: Array(text.utf8)).hex } ?? ""
            let head = Array((text + signature + "\n").utf8)
            let output = try AtomicFileWriter(folder: folder, prefix: name)
            try FormatError.typed { try head.withUnsafeBytes { try output.write($0) } }
            try FormatError.typed { try bytes.withUnsafeBytes { try output.write($0) } }
            try output.commit(to: path)
        }
    }
}
