import Dispatch
import Foundation
import LarderCache
import LarderFormat
import LarderTransport

/// One fetch, from the download claim to the install.
struct FetchWork: Sendable {
    let cache: LarderCache
    let origin: URL
    let transport: any HTTPTransport
    let configuration: BundleFetcher.Configuration
    let progress: (@Sendable (FetchProgress) -> Void)?
    let deadline: FetchDeadline

    func run(_ bundle: Digest) async throws(TransportError) -> FetchResult {
        guard let claim = try await claim(bundle) else {
            progress?(.complete())
            return FetchResult(bundle: bundle, source: .cache, bytesDownloaded: 0, requests: 0)
        }
        defer { claim.release() }
        do {
            let result = try await download(bundle, claim: claim)
            do { try claim.retire() } catch {
                // Installed: a leftover partial file is only space, and `cache gc` removes it.
            }
            progress?(.complete(result.bytesDownloaded, of: result.bytesDownloaded))
            return result
        } catch {
            if [.diskFull, .cache, .tooLarge, .digestMismatch].contains(error.code) {
                // Nothing left behind on a full disk; bytes the cache refused, or that passed
                // their bound or their digest, cannot help a later attempt.
                do { try claim.discardPartialFiles() } catch {
                    // The original error says more; the next claimant starts over anyway.
                }
            }
            throw error
        }
    }

    /// Claims the bundle's download, waiting (until the deadline) while another process or
    /// fetch holds it.
    /// - Returns: nil when the bundle is complete in the cache (already, or brought in by
    ///   whoever held the claim).
    private func claim(_ bundle: Digest) async throws(TransportError) -> DownloadClaim? {
        var pause = Duration.milliseconds(20)
        while true {
            if try await isComplete(bundle) { return nil }
            if let claim = try await blocking({ () throws(CacheError) in try cache.claimDownload(bundle) }) {
                // Whoever held it may have installed the bundle just before letting go (and
                // removed the lock file this claim may have made anew): nothing to keep.
                if try await isComplete(bundle) {
                    do { try claim.retire() } catch {
                        // Installed: a leftover lock file is only a name, and `cache gc` removes it.
                    }
                    return nil
                }
                return claim
            }
            guard deadline.remaining > pause else {
                throw TransportError(
                    .busy, "another process was still downloading this bundle into the same cache at the deadline", digest: bundle)
            }
            try await deadline.sleep(pause)
            pause = min(pause * 2, .milliseconds(250))
        }
    }

    /// Downloads what the cache lacks, the whole archive or the missing objects as
    /// ``FetchRoute`` chooses, and installs it, holding the objects the cache has from
    /// the moment they are counted as present until the install used them
    /// (``LarderCache/holdObjects(of:)``): another process evicting a bundle that shares them
    /// (a font) cannot take them in between.
    private func download(_ bundle: Digest, claim: DownloadClaim) async throws(TransportError) -> FetchResult {
        let (verified, manifestWire) = try await fetchManifest(bundle)
        let manifest = verified.manifest
        let hold = try await blocking { () throws(CacheError) in try cache.holdObjects(of: manifest) }
        let outcome: Result<FetchResult, TransportError>
        do throws(TransportError) {
            let (route, plan) = try await route(verified, missing: hold.missing)
            switch route {
            case .archive:
                outcome = .success(
                    try await fetchArchive(
                        bundle, manifest: manifest, manifestBytes: verified.bytes.count, manifestWire: manifestWire, index: plan ?? .none,
                        claim: claim))
            case .objects:
                outcome = .success(
                    try await fetchObjects(verified, missing: hold.missing, manifestWire: manifestWire, plan: plan, claim: claim))
            }
        } catch {
            outcome = .failure(error)
        }
        // An index write, which may wait for another process's: off the cooperative pool.
        _ = try? await blocking { () throws(CacheError) in hold.release() }
        return try outcome.get()
    }

    /// The manifest, checked against the bundle digest and decoded within its limits, and the
    /// bytes its answer took on the wire.
    private func fetchManifest(_ bundle: Digest) async throws(TransportError) -> (VerifiedManifest, Int64) {
        let url = origin.appendingPathComponent("bundles/\(bundle.hex)/manifest.json")
        let request = HTTPRequest(
            url: url, timeout: configuration.requestTimeout, maximumBodyBytes: Int64(Manifest.maximumBytes),
            minimumSpeed: configuration.minimumSpeed)
        let (response, _) = try await transport.send(request, attempts: configuration.attempts, deadline: deadline)
        guard response.status == 200 else {
            throw TransportError(.unexpectedStatus, "the origin did not serve the manifest", url: url, status: response.status, digest: bundle)
        }
        do {
            return (try VerifiedManifest(decoding: [UInt8](response.body), expecting: bundle), response.wireBytes)
        } catch where error.code == .digestMismatch {
            throw TransportError(.digestMismatch, "the manifest does not hash to the bundle digest", url: url, digest: bundle)
        } catch {
            throw TransportError(
                error.code == .limitExceeded ? .tooLarge : .malformedDocument, "the manifest was refused: \(error)", url: url,
                digest: bundle)
        }
    }

    private func fetchArchive(
        _ bundle: Digest, manifest: Manifest, manifestBytes: Int, manifestWire: Int64, index: PatchPlan, claim: DownloadClaim
    ) async throws(TransportError) -> FetchResult {
        let url = origin.appendingPathComponent("bundles/\(bundle.hex).tar.gz")
        // The install writes every object beside the archive: refused now when even that does
        // not fit, and once the archive's size is known (ArchiveSink) when both do not.
        let space = InstallSpace(manifest, storing: Set(manifest.files.map(\.digest)), manifestBytes: manifestBytes)
        if let free = InstallSpace.free(at: URL(fileURLWithPath: claim.archivePath).deletingLastPathComponent().path), space.total > free {
            throw space.refusal(download: 0, free: free, url: url, bundle: bundle)
        }
        let download = ArchiveDownload(
            transport: transport, url: url, claim: claim, bound: manifest.archiveSizeBound(manifestBytes: manifestBytes),
            installSpace: space, configuration: configuration, deadline: deadline)
        let progress = progress
        let outcome = try await download.run { done, total in progress?(FetchProgress(receivedBytes: done, expectedBytes: total)) }
        try await install(bundle) { () throws(CacheError) in try cache.install(archiveAt: claim.archivePath, expected: bundle) }
        // A patch index read to choose the route (and found wanting) is part of what it cost.
        return FetchResult(
            bundle: bundle, source: .archive, bytesDownloaded: outcome.bytes + manifestWire + index.wireBytes,
            requests: outcome.requests + 1 + index.requests,
            bytesByKind: FetchBytes(manifest: manifestWire, archive: outcome.bytes, patches: index.wireBytes), patchFallbacks: index.fallbacks)
    }

    private func fetchObjects(
        _ verified: VerifiedManifest, missing: Set<Digest>, manifestWire: Int64, plan read: PatchPlan?, claim: DownloadClaim
    ) async throws(TransportError) -> FetchResult {
        let (manifest, bundle) = (verified.manifest, verified.digest)
        try await blocking(for: bundle) { () throws(CacheError) in try claim.createObjectsFolder() }
        let sizes = Self.objectSizes(manifest)
        // Downloaded objects move into the store: the download is the install's space. Objects
        // an earlier attempt finished count as there.
        let download = ObjectDownload(transport: transport, origin: origin, claim: claim, configuration: configuration, deadline: deadline)
        let toDownload = missing.filter { DownloadFile.size(download.path(of: $0)) != sizes[$0] }
        let space = InstallSpace(manifest, storing: toDownload, manifestBytes: verified.bytes.count)
        if let free = InstallSpace.free(at: claim.objectsFolder), space.total > free {
            throw space.refusal(download: 0, free: free, url: nil, bundle: bundle)
        }
        let total = max(1, missing.reduce(0) { $0 + (sizes[$1] ?? 0) })
        // The index is read once: here, unless choosing the route read it already.
        let plan: PatchPlan
        if let read {
            plan = read
        } else {
            plan = configuration.usesPatches ? try await planPatches(bundle, missing: Set(toDownload), sizes: sizes) : .none
        }
        let patching = PatchDownload(
            transport: transport, origin: origin, cache: cache, claim: claim, configuration: configuration, deadline: deadline)
        let queue = missing.sorted()
        var files: [Digest: String] = [:]
        var bytes = FetchBytes(manifest: manifestWire, patches: plan.wireBytes)
        var applied = 0
        var fallbacks = plan.fallbacks
        var done: Int64 = 0
        var requests = 1 + plan.requests
        let outcome: Result<Void, TransportError> = await withTaskGroup(of: Result<FetchedObject, TransportError>.self) { group in
            var next = 0
            func start() {
                guard next < queue.count else { return }
                let object = queue[next]
                let size = sizes[object] ?? 0
                let patch = plan.chosen[object]
                next += 1
                group.addTask {
                    do throws(TransportError) {
                        return .success(try await Self.fetch(object, size: size, patch: patch, download: download, patching: patching))
                    } catch { return .failure(error) }
                }
            }
            for _ in 0..<configuration.parallelism { start() }
            while let result = await group.next() {
                switch result {
                case .success(let fetched):
                    files[fetched.object] = fetched.path
                    requests += fetched.requests
                    bytes.objects += fetched.objectBytes
                    bytes.patches += fetched.patchBytes
                    if fetched.patched { applied += 1 }
                    if fetched.fellBack { fallbacks += 1 }
                    done += sizes[fetched.object] ?? 0
                    progress?(FetchProgress(receivedBytes: done, expectedBytes: total))
                    start()
                case .failure(let error):
                    group.cancelAll()
                    return .failure(error)
                }
            }
            return .success(())
        }
        try outcome.get()
        let downloaded = files
        try await install(bundle) { () throws(CacheError) in
            try cache.install(verified, objectFiles: downloaded, adopting: true)
        }
        return FetchResult(
            bundle: bundle, source: .objects, bytesDownloaded: bytes.manifest + bytes.objects + bytes.patches, requests: requests,
            bytesByKind: bytes, patchesApplied: applied, patchFallbacks: fallbacks)
    }

    /// What one object of a fetch cost, and how it came.
    private struct FetchedObject: Sendable {
        var object: Digest
        var path: String
        var objectBytes: Int64 = 0
        var patchBytes: Int64 = 0
        var requests: Int
        var patched = false
        var fellBack = false
    }

    /// Makes the object from its patch when it has one (and an earlier attempt did not finish
    /// it already); otherwise, or when the patch fails, downloads it whole. A full disk under
    /// the patched object stops the fetch instead: the whole object would not fit either.
    private static func fetch(
        _ object: Digest, size: Int64, patch: PatchIndex.Entry?, download: ObjectDownload, patching: PatchDownload
    ) async throws(TransportError) -> FetchedObject {
        var spent: Int64 = 0
        var tries = 0
        var fellBack = false
        if let patch, DownloadFile.size(download.path(of: object)) != size {
            switch try await patching.run(patch, size: size, final: download.path(of: object)) {
            case .made(let path, let wireBytes, let requests):
                return FetchedObject(object: object, path: path, patchBytes: wireBytes, requests: requests, patched: true)
            case .failed(_, let wireBytes, let requests):
                spent = wireBytes
                tries = requests
                fellBack = true
            }
        }
        let fetched = try await download.run(object, size: size)
        return FetchedObject(
            object: object, path: fetched.path, objectBytes: fetched.wireBytes, patchBytes: spent, requests: fetched.requests + tries,
            fellBack: fellBack)
    }

    /// Installs what was downloaded; the cache's refusal (or a full disk) is reported once.
    private func install(_ bundle: Digest, _ body: @escaping @Sendable () throws(CacheError) -> InstallResult) async throws(TransportError) {
        _ = try await blocking(for: bundle, body)
    }

    private func isComplete(_ bundle: Digest) async throws(TransportError) -> Bool {
        try await blocking { () throws(CacheError) in try cache.bundle(bundle)?.complete == true }
    }

    /// Runs a blocking cache call off the cooperative thread pool.
    /// - Parameter bundle: the bundle a failure is about, when the cache's error does not say.
    func blocking<T: Sendable>(
        for bundle: Digest? = nil, _ body: @escaping @Sendable () throws(CacheError) -> T
    ) async throws(TransportError) -> T {
        let result: Result<T, CacheError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do throws(CacheError) { continuation.resume(returning: .success(try body())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error):
            let digest = error.digest ?? bundle
            switch error.code {
            case .diskFull: throw TransportError(.diskFull, "the cache ran out of space", digest: digest, cacheError: error)
            case .invalidBundle, .bundleDigestMismatch:
                throw TransportError(.cache, "the cache refused the bundle", digest: digest, cacheError: error)
            default: throw TransportError(.cache, "the cache failed", digest: digest, cacheError: error)
            }
        }
    }
}
