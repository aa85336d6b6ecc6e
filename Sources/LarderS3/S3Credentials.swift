import Foundation
import LarderFormat
import LarderPublish

/// The keys requests are signed with: from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
/// `AWS_SESSION_TOKEN`, or else from a profile of the shared credentials file
/// (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`; `AWS_PROFILE`, default
/// `default`).
public struct S3Credentials: Sendable {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// Temporary credentials' token, sent as `x-amz-security-token`.
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// - Throws: `PublishError.Code.credentials` naming what is missing.
    public static func from(environment: [String: String]) throws(PublishError) -> S3Credentials {
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if let id = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"], !id.isEmpty, !secret.isEmpty {
            return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let file = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
        let profile = environment["AWS_PROFILE"] ?? "default"
        let missing = PublishError(
            .credentials,
            "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), or a [\(profile)] profile in \(file)")
        guard FileManager.default.fileExists(atPath: file) else { throw missing }
        let bytes: [UInt8]
        do { bytes = try ReadableFile(path: file).readAll(limit: 1 << 20) } catch { throw PublishError(.credentials, "cannot read \(file): \(error.message)") }
        let values = profileValues(String(decoding: bytes, as: UTF8.self), profile: profile)
        guard let id = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else { throw missing }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: values["aws_session_token"])
    }

    /// The `key = value` lines of one `[profile]` section of an INI file.
    static func profileValues(_ text: String, profile: String) -> [String: String] {
        var values: [String: String] = [:]
        var inside = false
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") || line.hasPrefix(";") || line.isEmpty { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                inside = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces) == profile
                continue
            }
            guard inside, let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return values
    }
}

/// The secret and the token never show in a description, a debug print or a test failure.
extension S3Credentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "S3Credentials(\(accessKeyID), secret hidden\(sessionToken == nil ? "" : ", session token hidden"))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["accessKeyID": accessKeyID]) }
}
