import Foundation
import LarderFormat

/// `--trust <public key>` (repeatable): the publisher keys a journey host accepts signed
/// documents from, each given as the text `ed25519:<base64>` or the path of a `.pub` file
/// written by `larder keys generate`.
enum TrustOption {
    static let option = RepeatedOption<PublicKey>(
        OptionSpec(
            names: ["--trust"], value: "public-key",
            help: "Accept only journey documents signed by this key (ed25519:<base64>, or a .pub file from 'larder keys generate'); repeat it to trust several.")
    ) { text in
        var keyText = text
        if !text.hasPrefix("ed25519:") {
            do { keyText = String(decoding: try ReadableFile(path: text).readAll(limit: 4096), as: UTF8.self) } catch {
                return .failure(OptionRefusal(message: "Invalid '--trust <public-key>': '\(text)' is neither ed25519:<base64> nor a readable key file"))
            }
        }
        do throws(FormatError) { return .success(try PublicKey(text: keyText)) } catch {
            return .failure(OptionRefusal(message: "Invalid '--trust <public-key>': '\(text)': \(error.message)"))
        }
    }
    static var spec: OptionSpec { option.spec }

    /// The trusted keys; empty when none was given.
    static func keys(_ parsed: ParsedArguments, spec: CommandSpec) throws(UsageError) -> [PublicKey] {
        try option.values(in: parsed, command: spec)
    }
}
