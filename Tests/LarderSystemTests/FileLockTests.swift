import Foundation
import LarderSystem
import Testing

/// `flock` locks conflict between open file descriptions even in one process, which is what
/// these tests use: each `acquire` opens the file anew.
@Suite struct FileLockTests {
    @Test func sharedHoldersCoexistAndExcludeAnExclusiveOne() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/lock"
        var first = try FileLock.acquire(path, .shared, wait: false)
        var second = try FileLock.acquire(path, .shared, wait: false)
        #expect(first != nil && second != nil)
        #expect(try FileLock.acquire(path, .exclusive, wait: false) == nil)
        first = nil
        #expect(try FileLock.acquire(path, .exclusive, wait: false) == nil, "one shared holder is left")
        second = nil
        var exclusive = try FileLock.acquire(path, .exclusive, wait: false)
        #expect(exclusive != nil)
        #expect(try FileLock.acquire(path, .shared, wait: false) == nil)
        exclusive = nil
        #expect(try FileLock.acquire(path, .shared, wait: false) != nil)
    }

    @Test func aScopeHoldsTheLockUntilItEnds() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/lock"
        let failure = { (error: Errno) in error }
        let inside = try FileLock.holding(path, .exclusive, failure: failure) { () throws(Errno) -> Bool in
            try FileLock.acquire(path, .shared, wait: false) == nil
        }
        #expect(inside == true)
        #expect(try FileLock.acquire(path, .exclusive, wait: false) != nil, "released when the scope ended")
        // Not waiting, a held lock skips the body.
        var held = try FileLock.acquire(path, .shared)
        #expect(held != nil)
        var ran = false
        let skipped = try FileLock.holding(path, .exclusive, wait: false, failure: failure) { () throws(Errno) -> Bool in
            ran = true
            return true
        }
        #expect(skipped == nil && !ran)
        held = nil
        #expect(try FileLock.acquire(path, .exclusive, wait: false) != nil)
    }

    @Test func aLockFileThatCannotBeOpenedIsTheCallersError() throws {
        let scratch = try Scratch()
        struct Refused: Error, Equatable { var errno: Errno }
        #expect(throws: Refused(errno: .notFound)) {
            try FileLock.holding(scratch.path + "/missing/lock", .shared, failure: { Refused(errno: $0) }) { () throws(Refused) in }
        }
    }
}
