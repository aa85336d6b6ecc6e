import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderPack

/// Fonts built to cost the packer or the devices: a few bytes that inflate past the limit on a
/// decoded font.
@Suite struct HostileFontTests {
    static let openSans = FontPipelineTests.openSans

    /// OpenSans as a WOFF 1.0 file (tables stored) with one more table: 40 MiB of zeros, in
    /// about 40 kB of zlib.
    static let inflatingWOFF: [UInt8] = {
        let tables = FontFixtures.tables(of: openSans).map { (tag: $0.tag, stored: $0.bytes, length: $0.bytes.count) }
        return FontFixtures.woff(tables + [(tag: "zero", stored: FontFixtures.zlibOfZeros(40 << 20), length: 40 << 20)])
    }()

    /// Font Awesome's WOFF2 saying its font is 40 MiB (WebKit reserves what it says).
    static func declaringWOFF2() throws -> [UInt8] {
        var bytes = Array(try #require(FileManager.default.contents(atPath: "/usr/share/fonts-font-awesome/fonts/fontawesome-webfont.woff2")))
        let size = 40 << 20
        bytes.replaceSubrange(16..<20, with: [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)])
        return bytes
    }

    /// A WOFF whose tables inflate past 16 MiB, or a WOFF2 declaring such a font, is refused
    /// from its headers, whatever the other settings (`--strict` or not, subsets or not): an
    /// error naming the file and the limit, nothing written, nothing inflated.
    @Test(arguments: ["woff", "woff2", "woff subsets"])
    func aFontThatDecodesPastTheLimitIsRefused(_ kind: String) throws {
        let (file, bytes) = kind.hasPrefix("woff2") ? ("fonts/face.woff2", try Self.declaringWOFF2()) : ("fonts/face.woff", Self.inflatingWOFF)
        #expect(bytes.count < 400_000)
        let folder = try FontPipelineTests.folder(
            fonts: kind.hasSuffix("subsets") ? #"{"subsets": ["latin"]}"# : nil, src: "url(../\(file))", files: [file: bytes])
        let errors = folder.packFailure()
        #expect(errors.map(\.code) == [.fontTooLarge], "\(errors)")
        let message = try #require(errors.first?.message)
        #expect(message.hasPrefix("\(file): the font of 'Face' 400 normal decodes to "), "\(message)")
        #expect(message.contains("bytes, over the 16 MiB limit on a decoded font"), "\(message)")
        #expect(errors.first?.location?.description == "css/site.css:1:1")
        #expect(folder.outputFiles.isEmpty)
        #expect(try FontTools.decodedSize(of: bytes) >= 40 << 20)
    }

    /// The same WOFF with its zero table inside the limit converts as before: the limit is on
    /// what a font decodes to, not on WOFF.
    @Test func aWOFFInsideTheLimitConverts() throws {
        let tables = FontFixtures.tables(of: Self.openSans).map { (tag: $0.tag, stored: $0.bytes, length: $0.bytes.count) }
        let woff = FontFixtures.woff(tables + [(tag: "zero", stored: FontFixtures.zlibOfZeros(1 << 20), length: 1 << 20)])
        let folder = try FontPipelineTests.folder(src: "url(../fonts/face.woff)", files: ["fonts/face.woff": woff])
        let report = try FontPipelineTests.pack(folder)
        #expect(report.fonts.faces.first?.outcome == .converted)
        #expect(report.warnings.isEmpty, "\(report.warnings)")
    }
}
