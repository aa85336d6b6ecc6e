import Foundation
import LarderFormat

/// `--trust <public key>` (repeatable): the publisher keys a journey host accepts signed
/// documents from, each given as the text `ed25519:<base64>` or the path of a `.pub` file
/// written by `larder keys generate`.
enum TrustOption {
    static let spec = OptionSpec(
        names: ["--trust"], value: "public-key",
        help: "Accept only journey documents signed by this key (ed25519:<base64>, or a .pub file from 'larder keys generate'); repeat it to trust several.")

    /// The trusted keys; empty when none was given.
    static func keys(_ parsed: ParsedArguments, spec: CommandSpec) throws(UsageError) -> [PublicKey] {
        var keys: [PublicKey] = []
        for text in parsed.values(Self.spec.names[0]) {
            var keyText = text
            if !text.hasPrefix("ed25519:") {
                do { keyText = String(decoding: try ReadableFile(path: text).readAll(limit: 4096), as: UTF8.self) } catch {
                    throw UsageError(message: "Invalid '--trust <public-key>': '\(text)' is neither ed25519:<base64> nor a readable key file", command: spec)
                }
            }
            do { keys.append(try PublicKey(text: keyText)) } catch {
                throw UsageError(message: "Invalid '--trust <public-key>': '\(text)': \(error.message)", command: spec)
            }
        }
        return keys
    }
}
