import Foundation
import LarderPublish

extension S3Configuration {
    /// What never reaches output: the secret access key, the session token and a password
    /// written into `--endpoint` (`http://user:password@host`), as given and percent-encoded
    /// (a service may echo either). Values shorter than 4 characters are left alone: hiding
    /// them would mangle every message and protect nothing.
    static func secrets(_ credentials: S3Credentials, _ endpointPassword: String?) -> [String] {
        let values = [credentials.secretAccessKey, credentials.sessionToken, endpointPassword].compactMap { $0 }.filter { $0.count >= 4 }
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let encoded = values.compactMap { $0.addingPercentEncoding(withAllowedCharacters: unreserved) }
        // Longest first, so a secret that contains another is replaced whole.
        return Array(Set(values + encoded)).sorted { $0.count > $1.count }
    }

    /// `text` with every secret replaced by `<redacted>`: every message about the bucket
    /// passes through here (S3Target's errors), whatever a service echoed into it.
    package func redact(_ text: String) -> String {
        var text = text
        for secret in secrets where Self.occurs(secret, in: text) {
            text = text.replacingOccurrences(of: secret, with: "<redacted>")
        }
        return text
    }

    /// Whether `needle`'s UTF-8 is in `text`'s: a message is checked for every secret, and
    /// most hold none.
    private static func occurs(_ needle: String, in text: String) -> Bool {
        let bytes = Array(text.utf8)
        return S3Answer.offset(of: Array(needle.utf8), in: bytes, from: 0, to: bytes.count) != nil
    }

    /// A service's words quoted in a message (an error document's `Message`, an ETag):
    /// redacted, and cut to 300 characters.
    package func quoted(_ said: String) -> String {
        let redacted = redact(said)
        return redacted.count > 300 ? String(redacted.prefix(300)) + "…" : redacted
    }

    /// An endpoint as the user wrote it, for a message about it: a password after `user:` and
    /// before `@` is replaced by `<redacted>`, whether or not the rest parses.
    static func redactingUserInfo(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let authorityEnd = text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") else { return text }
        let user = text[scheme.upperBound..<at]
        guard let colon = user.firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + "<redacted>" + String(text[at...])
    }
}

extension PublishError {
    /// This error with its message and path passed through `configuration`'s
    /// ``S3Configuration/redact(_:)``.
    func redacted(by configuration: S3Configuration) -> PublishError {
        var error = self
        error.message = configuration.redact(message)
        error.path = path.map(configuration.redact)
        return error
    }
}
