import LarderTestSupport
@testable import LarderPack

extension SourceFolder {
    /// Packs, expecting failure; returns the errors.
    func packFailure(strict: Bool = false) -> [PackError] {
        do {
            _ = try Packer.pack(source: root, into: output, options: PackOptions(strict: strict))
            return []
        } catch {
            return error.errors
        }
    }
}
