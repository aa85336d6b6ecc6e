import Foundation
import LarderCache
import LarderFormat
import LarderTransport

/// Which of a fetch's objects come from patches: the bundle's patch index, read once, and for
/// each object the cache lacks the smallest patch whose base the cache holds.
struct PatchPlan: Sendable {
    /// The patch chosen for each object that has one.
    var chosen: [Digest: PatchIndex.Entry] = [:]
    /// What reading the index moved (a 404 included).
    var wireBytes: Int64 = 0
    var requests = 0
    /// 1 when the origin served an index that could not be used (refused, damaged, too large).
    var fallbacks = 0

    static let none = PatchPlan()
}

extension FetchWork {
    /// Reads the bundle's patch index (``PatchIndex/path(bundle:)``) and chooses a patch for
    /// each object in `missing` whose base the cache holds. A 404 means the origin published
    /// none; any other failure to read the index (a stall at its first try included:
    /// ``HTTPTransport/sendOptional(_:into:attempts:deadline:tries:)``) is one fallback and no
    /// patches.
    /// - Throws: `TransportError/Code/cancelled` only.
    func planPatches(_ bundle: Digest, missing: Set<Digest>, sizes: [Digest: Int64]) async throws(TransportError) -> PatchPlan {
        let url = origin.appendingPathComponent(PatchIndex.path(bundle: bundle))
        let request = HTTPRequest(
            url: url, timeout: configuration.requestTimeout, maximumBodyBytes: Int64(PatchIndex.maximumBytes), acceptsCompression: true,
            minimumSpeed: configuration.minimumSpeed)
        var plan = PatchPlan()
        let response: HTTPResponse
        do {
            response = try await transport.sendOptional(request, attempts: configuration.attempts, deadline: deadline, tries: &plan.requests)
        } catch {
            if error.code == .cancelled || Task.isCancelled { throw error }
            plan.fallbacks = 1
            return plan
        }
        plan.wireBytes = response.wireBytes
        guard response.status != 404 else { return plan }
        guard response.status == 200, let index = try? PatchIndex(decoding: [UInt8](response.body)) else {
            plan.fallbacks = 1  // the objects come whole; why the index was refused does not change that
            return plan
        }
        let limits = configuration.patchLimits
        var candidates: [(object: Digest, entries: [PatchIndex.Entry])] = []
        for object in missing.sorted() {
            guard let size = sizes[object], size <= limits.maximumOutputBytes else { continue }
            let entries = index.patches(to: object).filter { $0.size <= limits.maximumPatchBytes }.sorted(by: { $0.size < $1.size })
            if !entries.isEmpty { candidates.append((object, entries)) }
        }
        let bases = await held(Set(candidates.flatMap { $0.entries.map(\.from) }))
        for (object, entries) in candidates {
            if let entry = entries.first(where: { bases.contains($0.from) }) { plan.chosen[object] = entry }
        }
        return plan
    }

    /// Which of `objects` the cache holds (one index read off the cooperative pool, however
    /// many are asked about); a cache that cannot say holds nothing to patch from.
    private func held(_ objects: Set<Digest>) async -> Set<Digest> {
        guard !objects.isEmpty else { return [] }
        do throws(TransportError) {
            return try await blocking { () throws(CacheError) in try cache.heldObjects(among: objects) }
        } catch {
            return []
        }
    }
}

extension HTTPTransport {
    /// Sends a request the fetch can do without (the patch index, a patch): tried again after a
    /// dropped connection, up to `attempts` tries within `deadline`, like
    /// `send(_:into:attempts:deadline:)`, but never after a stall (no answer within the request's
    /// time limit, or slower than its minimum speed). The fetch's fallback, the whole object, is
    /// the retry: trying a stalled patch server again cost `attempts` times the stall limit (45 s
    /// with the defaults) for the index, and as much again for the patches, before the objects
    /// came whole.
    /// - Parameter tries: set to the number of requests sent, also when it throws.
    func sendOptional(
        _ request: HTTPRequest, into sink: (any ResponseSink)? = nil, attempts: Int, deadline: FetchDeadline, tries: inout Int
    ) async throws(TransportError) -> HTTPResponse {
        var request = request
        let limit = request.timeout
        tries = 0
        while true {
            request.timeout = try deadline.requestTimeout(limit, url: request.url)
            tries += 1
            do {
                if let sink { return try await send(request, into: sink) }
                return try await send(request)
            } catch where error.code == .connection && tries < attempts && deadline.remaining > .zero {
                try await deadline.sleep(.milliseconds(100 * tries * tries))
            }
        }
    }
}
