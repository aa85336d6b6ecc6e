import LarderFormat
@testable import LarderRendering
import Testing

/// A path the packer accepts is one the renderers serve, and one they refuse the packer
/// refuses: both decode with ``URLPath``.
@Suite struct PathAgreementTests {
    static let bundle = try! Digest(hex: String(repeating: "ab", count: 32))

    @Test(arguments: [
        "index.html", "images/a%20b.svg", "caf%C3%A9.html", "cafe%CC%81.html", "a%2Fb.css", "%E2%82%AC.png", "100%25.png",
        "100%.png", "a%FF.png", "bad%zzescape", "tail%", "tail%4", "%C3", "ok%2e.png",
    ])
    func thePackerAndTheSchemeDecodeAlike(_ path: String) {
        let route = SchemeRoute.of("\(SchemeRoute.bundleScheme)://\(Self.bundle.hex)/\(path)", bundle: Self.bundle)
        switch ReferenceResolver.resolve(path, from: "index.html") {
        case .local(let resolved):
            #expect(route == .file(path: resolved), "\(path)")
        case .malformed:
            guard case .refused(400, _) = route else {
                Issue.record("the packer refuses '\(path)' and the scheme answers \(route)")
                return
            }
        case let other:
            Issue.record("'\(path)' resolved to \(other)")
        }
    }
}
