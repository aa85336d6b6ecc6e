import Foundation
import LarderFormat
import LarderPack
@testable import LarderPublish
import LarderTestSupport
import Testing

/// Issue 20: revision arithmetic never traps. An origin whose document is at `Int64.max` (which
/// a device accepts) gets a typed error for the next revision, a publish or a rollback, and
/// nothing on the origin changes; renewing the signature keeps the revision and still works.
@Suite struct RevisionArithmeticTests {
    @Test func nothingFollowsTheHighestRevisionAndNothingIsWritten() throws {
        let first = try SourceFolder(["index.html": "<p>one</p>"])
        let second = try SourceFolder(["index.html": "<p>two</p>"])
        let archives = try [first, second].map { try Packer.pack(source: $0.root, into: $0.output).archivePath }
        let origin = first.output + "/origin"
        let key = try SigningKey.generate()
        let publication = JourneyPublication(id: "j", key: nil, signingKey: key)
        for archive in archives { _ = try OriginPublisher.publish(archives: [archive], to: origin, journey: publication) }
        let path = origin + "/journeys/j.json"
        var document = try #require(try OriginPublisher.currentDocument(journey: "j", origin: origin))
        document.revision = .max
        try document.sign(with: key)
        try Data(document.canonicalBytes).write(to: URL(fileURLWithPath: path))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let history = try Data(contentsOf: URL(fileURLWithPath: origin + "/" + JourneyHistory.path(journey: "j")))

        let publish = #expect(throws: PublishError.self) {
            try OriginPublisher.publish(archives: [archives[0]], to: origin, journey: publication)
        }
        let rollback = #expect(throws: PublishError.self) { try OriginPublisher.rollback(publication, to: nil, origin: origin) }
        for failure in [publish, rollback] {
            #expect(failure?.message.contains("is at revision 9223372036854775807, the highest there is") == true, "\(String(describing: failure))")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: origin + "/" + JourneyHistory.path(journey: "j"))) == history)

        // The same bundle again renews the signature and keeps the revision: no arithmetic.
        var later = publication
        later.now = publication.now.addingTimeInterval(60)
        let renewed = try #require(try OriginPublisher.publish(archives: [archives[1]], to: origin, journey: later).journey)
        #expect(renewed.revision == .max && renewed.expires != document.expires)
    }
}
