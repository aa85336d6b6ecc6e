import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderTestSupport
@testable import LarderRendering
@testable import LarderWebKit
import Testing

extension WebKitTests {
    /// What a page may ask the schemes for: its own bundle's files and the cache's fonts, and
    /// nothing else; a refusal is an error response and the cache is unchanged.
    @Suite struct SchemeRequests {
        /// The cache as a user of it would see it: bundles and the files of the object store and
        /// quarantine, with their sizes.
        static func snapshot(_ fixture: WebKitFixture) throws -> [String] {
            var lines = try fixture.cache.bundles().map { "\($0.digest) \($0.complete) \($0.size) \($0.fileCount)" }
            for folder in ["objects", "quarantine", "staging"] {
                let root = fixture.root + "/cache/" + folder
                guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
                for case let path as String in walker {
                    let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + path)
                    lines.append("\(folder)/\(path) \(attributes[.size] ?? 0)")
                }
            }
            return lines.sorted()
        }

        @Test func refusedRequestsGetErrorResponsesAndLeaveTheCacheUnchanged() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installSample("onboarding")
            let (other, _) = try fixture.installSample("paywall")
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            let before = try Self.snapshot(fixture)
            let served = await renderer.servedRequests.count

            let own = "larder://\(bundle.hex)/"
            let cases: [(url: String, status: Int)] = [
                ("larder://\(other.hex)/index.html", 403),  // another bundle's files
                (own + "css/..%2F..%2Fmanifest.json", 400),  // '..' once decoded
                (own + "..%2Findex.html", 400),
                (own + "manifest.json", 404),  // the manifest is not a file of the bundle
                (own + "no-such-file.css", 404),
                ("larder-font://sha256/" + String(repeating: "5a", count: 32), 404),  // an unknown digest
                ("larder-font://sha256/NOT-A-DIGEST", 400),
                (own + "css/base.css", 200),  // and the bundle's own files still work
            ]
            let urls = JSONValue.array(cases.map { .string($0.url) }).jsonText
            let seen = try await renderer.callAsyncFunction("""
                const statuses = [];
                for (const url of \(urls)) {
                  try { statuses.push((await fetch(url)).status); } catch (error) { statuses.push(-1); }
                }
                return statuses;
                """)

            let answered = Array(await renderer.servedRequests.dropFirst(served))
            #expect(answered.map(\.status) == cases.map(\.status), "\(answered)")
            for (record, expected) in zip(answered, cases) where expected.status != 200 {
                #expect(record.bytes == 0)
                #expect(record.error?.isEmpty == false)
            }
            // The page saw an error for every refusal: the status, or a failed fetch where the
            // refusal carried no CORS header (another origin).
            guard case .array(let statuses) = seen else { Issue.record("\(seen)"); return }
            for (status, expected) in zip(statuses, cases) {
                if expected.status == 200 { #expect(status == .int(200)) } else { #expect(status == .int(Int64(expected.status)) || status == .int(-1)) }
            }
            #expect(try Self.snapshot(fixture) == before)
            #expect(await renderer.state == .loaded(visible: false, document: "index.html"))
            await renderer.stop()
        }

        @Test func aFontIsServedToFetchWithCORSAndAContentType() async throws {
            let fixture = try WebKitFixture()
            let (bundle, manifest) = try fixture.installSample("legacy-prompt")
            let font = try #require(manifest.files.first { $0.role == .font })
            let style = try #require(manifest.file(at: "style.css"))
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            let answer = try await renderer.callAsyncFunction("""
                const font = await fetch("larder-font://sha256/\(font.digest.hex)");
                const own = await fetch("style.css");
                return [font.status, font.headers.get("content-type"), (await font.arrayBuffer()).byteLength,
                        own.status, own.headers.get("content-type")];
                """)
            #expect(answer == .array([.int(200), .string(font.mediaType), .int(font.size), .int(200), .string(style.mediaType)]))
            await renderer.stop()
        }
    }
}
