import Foundation
import LarderFormat
import LarderSystem

/// The secret that signs the font cache's entries: 32 random bytes in a private file outside
/// every cache folder (`$XDG_CONFIG_HOME/larder/font-cache.key`, else
/// `$HOME/.config/larder/font-cache.key`), made on first use. An entry that carries this key's
/// signature was written by a pack of this user and is used as it is (a warm pack costs a hash);
/// any other entry (a cache restored from another machine's CI job, planted, or from a version
/// of Larder that did not sign) is used only after the font cache checks it against its source
/// (see ``FontCache``), then signed. So whoever can write a cache folder but not read this file
/// cannot make a pack use a font it did not make.
struct FontCacheKey: Sendable {
    private let secret: [UInt8]

    init(secret: [UInt8]) { self.secret = secret }

    /// Where the key is kept; nil when neither variable names an absolute folder.
    static var standardPath: String? {
        let environment = ProcessInfo.processInfo.environment
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/larder/font-cache.key" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.config/larder/font-cache.key" }
        return nil
    }

    /// The key in `path`, made first when there is none (its folders too).
    /// - Throws: a sentence saying why there is no key: the file cannot be made or read, or it
    ///   is not a private file of this user holding 64 hexadecimal digits.
    static func load(_ path: String) throws(FontProblem) -> FontCacheKey {
        if !File.exists(path) {
            var secret = [UInt8](repeating: 0, count: 32)
            var generator = SystemRandomNumberGenerator()
            for index in secret.indices { secret[index] = generator.next() }
            let folder = (path as NSString).deletingLastPathComponent
            do {
                try Folder.createPath(folder, permissions: 0o700)
            } catch {
                throw FontProblem("cannot make the folder \(error.path) for the font cache key: \(error.errno)")
            }
            do {
                let output = try AtomicFile(folder: folder, prefix: "font-cache.key", mode: 0o600)
                try Array((Digest(bytes: secret).hex + "\n").utf8).withUnsafeBytes { try output.write($0) }
                try output.commit(to: path, replacing: false)
            } catch let failure as AtomicFile.Failure where failure.step == .move && failure.errno == .exists {
                // Another pack made it first: that one is the key.
            } catch let failure as AtomicFile.Failure {
                throw FontProblem("cannot make the font cache key \(path): \(failure.errno)")
            } catch {
                throw FontProblem("cannot make the font cache key \(path): \(error)")
            }
        }
        let text: [UInt8]
        do {
            let file = try FileDescriptor(opening: path, [.readOnly, .noFollow, .nonBlocking])
            var info = stat()
            guard fstat(file.rawValue, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid(), info.st_mode & 0o077 == 0
            else {
                throw FontProblem("the font cache key \(path) is not a private file of this user (chmod 600 it, or remove it to make a new one)")
            }
            var buffer = [UInt8](repeating: 0, count: 66)
            let count = try buffer.withUnsafeMutableBytes { try file.read(into: $0) }
            text = Array(buffer.prefix(count))
        } catch let problem as FontProblem {
            throw problem
        } catch {
            throw FontProblem("cannot read the font cache key \(path): \(error)")
        }
        guard text.count == 65, text.last == 0x0A, let digest = try? Digest(hex: String(decoding: text.dropLast(), as: UTF8.self)) else {
            throw FontProblem("the font cache key \(path) is not 64 hexadecimal digits (remove it to make a new one)")
        }
        return FontCacheKey(secret: digest.bytes)
    }

    /// HMAC-SHA-256 (RFC 2104) of `message` under the secret.
    /// - Complexity: O(n): two hashes, one of `message`.
    func signature(of message: [UInt8]) -> Digest {
        let blockSize = 64
        var padded = secret + [UInt8](repeating: 0, count: blockSize - secret.count)
        let inner = SHA256Hasher()
        for index in padded.indices { padded[index] ^= 0x36 }
        inner.update(padded)
        inner.update(message)
        let outer = SHA256Hasher()
        for index in padded.indices { padded[index] ^= 0x36 ^ 0x5C }
        outer.update(padded)
        outer.update(inner.finalize().bytes)
        return outer.finalize()
    }
}
