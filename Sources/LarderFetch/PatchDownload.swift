import Dispatch
import Foundation
import LarderCache
import LarderFormat
import LarderTransport

/// Makes one object of a fetch from a patch (Docs/Patches.md): downloads the patch (at most the
/// size its index entry states and ``PatchLimits/maximumPatchBytes``), checks its digest,
/// reads the base through the cache's verified read, applies it within the limits to exactly
/// the manifest's size, checks the result's SHA-256, and only then writes it where the install
/// takes downloaded objects from. Any failure is an ``Outcome/failed(_:wireBytes:requests:)``
/// the fetch answers by downloading the object (a stalled patch after one try), except a full
/// disk, which the whole object would run into too; nothing unverified is ever written.
struct PatchDownload {
    let transport: any HTTPTransport
    let origin: URL
    let cache: LarderCache
    let claim: DownloadClaim
    let configuration: BundleFetcher.Configuration
    let deadline: FetchDeadline

    enum Outcome: Sendable {
        /// The object, verified, at `path`.
        case made(path: String, wireBytes: Int64, requests: Int)
        /// Why the patch did not make the object, and what trying cost.
        case failed(String, wireBytes: Int64, requests: Int)
    }

    /// - Parameters:
    ///   - entry: the index entry to apply; its `to` is the object.
    ///   - size: the object's size, as the verified manifest states it.
    ///   - final: where the object goes once verified.
    /// - Throws: `TransportError/Code/cancelled`, or `TransportError/Code/diskFull` when the
    ///   object made from the patch does not fit (its partial file removed): every other failure
    ///   is an outcome.
    func run(_ entry: PatchIndex.Entry, size: Int64, final: String) async throws(TransportError) -> Outcome {
        let limits = configuration.patchLimits
        let url = origin.appendingPathComponent(PatchIndex.path(of: entry.patch))
        guard entry.size <= limits.maximumPatchBytes else {
            return .failed("the index states a patch of \(entry.size) bytes, past the limit", wireBytes: 0, requests: 0)
        }
        let sink = MemorySink()
        let request = HTTPRequest(
            url: url, timeout: configuration.requestTimeout, maximumBodyBytes: entry.size, minimumSpeed: configuration.minimumSpeed)
        let response: HTTPResponse
        var requests = 0
        do {
            response = try await transport.sendOptional(request, into: sink, attempts: configuration.attempts, deadline: deadline, tries: &requests)
        } catch {
            if error.code == .cancelled || Task.isCancelled { throw error }
            return .failed("the patch could not be fetched: \(error)", wireBytes: 0, requests: requests)
        }
        guard response.status == 200 else {
            return .failed("the origin answered \(response.status) for the patch", wireBytes: response.wireBytes, requests: requests)
        }
        let patch = [UInt8](sink.take())
        let made = await Self.offThePool { () -> Result<[UInt8], PatchError> in
            Self.make(entry, from: patch, size: size, cache: cache, limits: limits)
        }
        switch made {
        case .failure(let error): return .failed(error.message, wireBytes: response.wireBytes, requests: requests)
        case .success(let object):
            do { try DownloadFile.replace(final, with: object, url: url) } catch {
                // The whole object needs the same space on the same disk: downloading it would
                // only fail in turn, after moving its bytes.
                if error.code == .diskFull { throw error }
                return .failed("the object made from the patch could not be written: \(error)", wireBytes: response.wireBytes, requests: requests)
            }
            return .made(path: final, wireBytes: response.wireBytes, requests: requests)
        }
    }

    /// Checks the patch, applies it to the base read through the cache, and checks the result.
    static func make(_ entry: PatchIndex.Entry, from patch: [UInt8], size: Int64, cache: LarderCache, limits: PatchLimits) -> Result<[UInt8], PatchError> {
        do throws(PatchError) {
            guard Int64(patch.count) == entry.size, SHA256Hasher.hash(patch) == entry.patch else {
                throw PatchError(.digestMismatch, "the patch is not the one its index names (\(patch.count) bytes)")
            }
            let base: [UInt8]
            do { base = try cache.verifiedObject(entry.from, size: entry.fromSize) } catch {
                throw PatchError(.damaged, "the patch's base is not readable in the cache: \(error)")
            }
            let object = try ZstdPatch.apply(patch, to: base, outputSize: size, limits: limits)
            guard SHA256Hasher.hash(object) == entry.to else {
                throw PatchError(.digestMismatch, "the patch made bytes that do not hash to \(entry.to)")
            }
            return .success(object)
        } catch {
            return .failure(error)
        }
    }

    private static func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in DispatchQueue.global().async { continuation.resume(returning: body()) } }
    }
}
