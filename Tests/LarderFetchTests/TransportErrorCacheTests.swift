import Foundation
import LarderCache
import LarderFetch
import LarderFormat
import LarderTransport
import Testing

/// The cache's error beneath a fetch's `TransportError`: carried as the transport error's
/// generic `cause`, read back as a `CacheError`, and described as before the split (the digest
/// once).
@Suite struct TransportErrorCacheTests {
    static let bundle = try! Digest(hex: String(repeating: "ab", count: 32))
    static let other = try! Digest(hex: String(repeating: "cd", count: 32))

    @Test func theCacheErrorIsTheCause() {
        let cacheError = CacheError(.invalidBundle, "the manifest does not parse", digest: Self.bundle)
        let error = TransportError(.cache, "the cache refused the bundle", digest: Self.bundle, cacheError: cacheError)
        #expect(error.cacheError?.code == .invalidBundle)
        #expect(error.cacheError?.digest == Self.bundle)
        #expect(error.cause is CacheError)
    }

    @Test func aCauseNamingTheSameDigestDoesNotRepeatIt() {
        let cacheError = CacheError(.diskFull, "no space for the object", digest: Self.bundle)
        let error = TransportError(.diskFull, "the cache ran out of space", digest: Self.bundle, cacheError: cacheError)
        let inner = CacheError(.diskFull, "no space for the object")
        #expect(error.description == "the cache ran out of space: \(inner) [\(Self.bundle)]")
        #expect(error.description.components(separatedBy: Self.bundle.description).count == 2)
    }

    @Test func aCauseNamingAnotherDigestKeepsIt() {
        let cacheError = CacheError(.corruptObject, "the object does not hash to its name", digest: Self.other)
        let error = TransportError(.cache, "the cache failed", digest: Self.bundle, cacheError: cacheError)
        #expect(error.description == "the cache failed: \(cacheError) [\(Self.bundle)]")
    }

    @Test func settingTheCacheErrorSetsTheCause() {
        var error = TransportError(.cache, "the cache failed", digest: Self.bundle)
        #expect(error.cacheError == nil)
        error.cacheError = CacheError(.storage, "the index is locked")
        #expect((error.cause as? CacheError)?.code == .storage)
        error.cacheError?.digest = Self.other
        #expect(error.cacheError?.digest == Self.other)
    }

    @Test func aCauseOfAnotherKindIsDescribedWhole() {
        struct Refusal: Error, Sendable, CustomStringConvertible { var description: String { "refused" } }
        let error = TransportError(.connection, "the origin hung up", digest: Self.bundle, cause: Refusal())
        #expect(error.cacheError == nil)
        #expect(error.description == "the origin hung up: refused [\(Self.bundle)]")
    }
}
