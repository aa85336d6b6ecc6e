import LarderFormat

extension VerifyCommand {
    /// `verify`'s options, each declared once (``TypedOption``).
    enum Options {
        static let digest = TypedOption<Digest?>(
            OptionSpec(
                names: ["--digest"], value: "sha256:hex",
                help: "The bundle digest to expect (default: from a <hex>.tar.gz file name)."),
            default: nil
        ) { text in
            do throws(FormatError) { return .success(try Digest(parsing: text)) } catch {
                return .failure(OptionRefusal(message: error.message))
            }
        }
    }
}
