import LarderFormat
import Testing

@Suite struct FontURLTests {
    static let hex = "0ad460bd756454f8485609747b25c5644a54d307a65daabbb24c646c112ed541"

    @Test func parsesTheExactForm() throws {
        let url = try FontURL(parsing: "larder-font://sha256/\(Self.hex)")
        #expect(url.digest == (try Digest(hex: Self.hex)))
        #expect(url.description == "larder-font://sha256/\(Self.hex)")
        #expect(FontURL.isOfScheme(url.description))
        #expect(!FontURL.isOfScheme("larder://\(Self.hex)/index.html"))
    }

    @Test(arguments: [
        "",
        "https://sha256/\(hex)",
        "LARDER-FONT://sha256/\(hex)",
        "larder-font:sha256/\(hex)",
        "larder-font://SHA256/\(hex)",
        "larder-font://sha512/\(hex)",
        "larder-font://evil.example/\(hex)",
        "larder-font://sha256/\(hex.uppercased())",
        "larder-font://sha256/\(hex.dropLast())",
        "larder-font://sha256/\(hex)0",
        "larder-font://sha256/\(hex)/",
        "larder-font://sha256/../../etc/passwd",
        "larder-font://sha256/..%2F..%2Fetc%2Fpasswd",
        "larder-font://sha256/\(hex)?v=1",
        "larder-font://sha256/\(hex)#x",
        "larder-font://sha256:443/\(hex)",
        "larder-font://user@sha256/\(hex)",
        "larder-font://sha256/fonts/Lato.ttf",
    ])
    func rejectsEverythingElse(_ text: String) {
        do throws(FormatError) {
            _ = try FontURL(parsing: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.code == .malformedFontURL)
            #expect(error.url == String(text.prefix(200)))
        }
    }
}
