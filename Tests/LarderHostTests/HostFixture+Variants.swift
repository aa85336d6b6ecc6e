import Foundation
import LarderFormat
import LarderHost
import LarderPack
import LarderPublish
import LarderTestSupport

extension HostFixture {
    /// Packs a copy of a sample whose `larder.json` declares another renderer protocol (and
    /// capabilities); returns the archive.
    func archive(_ sample: String, rendererProtocol: Int, capabilities: [String] = ["prepare", "visibility"]) throws -> String {
        let source = root + "/variants/\(sample)-p\(rendererProtocol)"
        if !FileManager.default.fileExists(atPath: source) {
            try FileManager.default.createDirectory(atPath: root + "/variants", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: sampleBundles + "/" + sample, toPath: source)
            let list = capabilities.map { "\"\($0)\"" }.joined(separator: ",")
            let settings = #"{"name": "\#(sample)", "entry": "index.html", "renderer": {"protocol": \#(rendererProtocol), "capabilities": [\#(list)]}}"#
            try Data(settings.utf8).write(to: URL(fileURLWithPath: source + "/larder.json"))
        }
        return try Packer.pack(source: source, into: root + "/packed-variants").archivePath
    }

    /// Points the journey at an archive; returns the journey document.
    @discardableResult
    func publish(archive: String, refresh: Int64 = 600, journey: String = HostFixture.journey) throws -> JourneyDocument {
        let report = try OriginPublisher.publish(
            archives: [archive], to: root + "/origin",
            journey: JourneyPublication(id: journey, key: Self.key, refresh: refresh, now: clock.now))
        guard let document = report.journey else { throw HostError(.unavailable, "publish wrote no journey document") }
        return document
    }

    /// Removes the journey's document from the origin: it answers 404 from now on.
    func unpublish(journey: String = HostFixture.journey) throws {
        try FileManager.default.removeItem(atPath: root + "/origin/journeys/\(journey).json")
    }
}
