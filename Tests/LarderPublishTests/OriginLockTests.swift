import Dispatch
import Foundation
import LarderFormat
import LarderPack
@testable import LarderPublish
import LarderSystem
import LarderTestSupport
import Testing

/// The origin's lock: publishers at once on one journey each get a revision of their own (none
/// lost, none numbered twice), and a planted link where the lock file belongs is never followed.
@Suite struct OriginLockTests {
    @Test func publishersAtOnceEachGetTheirOwnRevision() throws {
        let folders = try (0..<6).map { try SourceFolder(["index.html": "<p>\($0)</p>"]) }
        let archives = try folders.map { try Packer.pack(source: $0.root, into: $0.output).archivePath }
        let origin = folders[0].output + "/origin"
        try FileManager.default.createDirectory(atPath: origin, withIntermediateDirectories: true)
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: archives.count) { index in
            do { _ = try OriginPublisher.publish(archives: [archives[index]], to: origin, journey: JourneyPublication(id: "j", key: nil)) } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let history = try JourneyHistory.read(journey: "j", origin: origin)
        #expect(history.entries.map(\.revision).sorted() == Array(1...Int64(archives.count)))
        #expect(try OriginPublisher.currentDocument(journey: "j", origin: origin)?.revision == Int64(archives.count))
    }

    @Test func aLinkWhereTheLockBelongsIsRefusedNotFollowed() throws {
        let folder = try SourceFolder(["index.html": "<p>x</p>"])
        let archive = try Packer.pack(source: folder.root, into: folder.output).archivePath
        let origin = folder.output + "/origin"
        try FileManager.default.createDirectory(atPath: origin, withIntermediateDirectories: true)
        let elsewhere = folder.output + "/elsewhere"
        try FileManager.default.createSymbolicLink(atPath: origin + "/.publish.lock", withDestinationPath: elsewhere)
        #expect(throws: PublishError.self) { try OriginPublisher.publish(archives: [archive], to: origin, journey: JourneyPublication(id: "j", key: nil)) }
        #expect(!FileManager.default.fileExists(atPath: elsewhere), "the lock's link was followed")
    }
}
