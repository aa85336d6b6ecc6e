import Dispatch
import Foundation
import LarderCache
import LarderFormat

/// How a bundle reached the cache.
public struct FetchResult: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// It was already there; nothing was downloaded.
        case cache
        /// Only the objects the cache lacked were downloaded.
        case objects
        /// The whole archive was downloaded (nothing of it was cached).
        case archive
    }

    public var bundle: Digest
    public var source: Source
    /// Body bytes received.
    public var bytesDownloaded: Int64
    /// HTTP requests sent, retries included.
    public var requests: Int
}

/// Fetches bundles from a static origin (see `larder publish`) into a ``LarderCache``.
///
/// The manifest is fetched and checked against the bundle digest first; then only the objects
/// the cache lacks are downloaded (a few at a time) and each is verified, or, when nothing of
/// the bundle is cached, the whole archive is downloaded in `Range` pieces that resume after a
/// dropped connection. Nothing is installed until everything verified. Concurrent fetches of
/// one bundle share one download.
public actor BundleFetcher {
    public struct Configuration: Sendable {
        /// Object downloads at once.
        public var parallelism = 4
        /// Bytes per `Range` request of an archive.
        public var pieceSize: Int64 = 4 << 20
        /// Tries per request when the connection drops or times out.
        public var attempts = 3
        /// How long one request may take.
        public var requestTimeout: Duration = .seconds(30)
        public init() {}
    }

    private let cache: LarderCache
    private let origin: URL
    private let transport: any HTTPTransport
    private let downloads: String
    private let configuration: Configuration
    private var running: [Digest: Task<FetchResult, any Error>] = [:]

    /// - Parameters:
    ///   - origin: the base URL the origin layout is served under.
    ///   - downloads: a folder for partial downloads (kept between attempts to resume).
    public init(
        cache: LarderCache, origin: URL, transport: any HTTPTransport = URLSessionTransport(), downloads: String,
        configuration: Configuration = .init()
    ) {
        self.cache = cache
        self.origin = origin
        self.transport = transport
        self.downloads = downloads
        self.configuration = configuration
    }

    /// Brings a bundle into the cache.
    /// - Parameter progress: fractions from 0 to 1 as bytes arrive (apps show it as preload
    ///   progress); called from a background task.
    /// - Throws: ``TransportError``; a server that sends wrong bytes gets nothing into the cache.
    public func fetch(_ bundle: Digest, progress: (@Sendable (Double) -> Void)? = nil) async throws(TransportError) -> FetchResult {
        if let task = running[bundle] { return try await Self.value(of: task) }
        let task = Task { [cache, origin, transport, downloads, configuration] () async throws -> FetchResult in
            try await FetchWork(
                cache: cache, origin: origin, transport: transport, downloads: downloads, configuration: configuration,
                progress: progress
            ).run(bundle)
        }
        running[bundle] = task
        defer { running[bundle] = nil }
        return try await Self.value(of: task)
    }

    private static func value(of task: Task<FetchResult, any Error>) async throws(TransportError) -> FetchResult {
        do { return try await task.value } catch let error as TransportError { throw error } catch {
            throw TransportError(.cancelled, "the fetch was cancelled")
        }
    }
}

/// One fetch, from manifest to install.
private struct FetchWork: Sendable {
    let cache: LarderCache
    let origin: URL
    let transport: any HTTPTransport
    let downloads: String
    let configuration: BundleFetcher.Configuration
    let progress: (@Sendable (Double) -> Void)?

    func run(_ bundle: Digest) async throws(TransportError) -> FetchResult {
        if try await blocking({ () throws(CacheError) in try cache.bundle(bundle) })?.complete == true {
            progress?(1)
            return FetchResult(bundle: bundle, source: .cache, bytesDownloaded: 0, requests: 0)
        }
        do { try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true) } catch {
            throw TransportError(.cache, "cannot create the downloads folder: \(error)")
        }
        let manifestURL = origin.appendingPathComponent("bundles/\(bundle.hex)/manifest.json")
        let response = try await transport.send(HTTPRequest(url: manifestURL, timeout: configuration.requestTimeout))
        guard response.status == 200 else { throw TransportError(.unexpectedStatus, "cannot fetch the manifest", url: manifestURL, status: response.status) }
        let manifestBytes = [UInt8](response.body)
        guard SHA256Hasher.hash(manifestBytes) == bundle else {
            throw TransportError(.digestMismatch, "the manifest does not hash to the bundle digest", url: manifestURL)
        }
        let manifest: Manifest
        do { manifest = try Manifest(decoding: manifestBytes) } catch {
            throw TransportError(.malformedDocument, "the manifest is invalid: \(error)", url: manifestURL)
        }
        let missing = try await blocking { () throws(CacheError) in try cache.missingObjects(of: manifest) }
        let distinct = Set(manifest.files.map(\.digest))
        if missing.count == distinct.count {
            return try await fetchArchive(bundle, requests: 1, manifestBytes: Int64(manifestBytes.count))
        }
        return try await fetchObjects(manifest, bytes: manifestBytes, bundle: bundle, missing: missing)
    }

    private func fetchArchive(_ bundle: Digest, requests: Int, manifestBytes: Int64) async throws(TransportError) -> FetchResult {
        let path = downloads + "/" + bundle.hex + ".tar.gz.part"
        let url = origin.appendingPathComponent("bundles/\(bundle.hex).tar.gz")
        var download = RangeDownload(transport: transport, url: url, path: path)
        download.pieceSize = configuration.pieceSize
        download.attempts = configuration.attempts
        download.timeout = configuration.requestTimeout
        let outcome = try await download.run { done, total in progress?(total > 0 ? Double(done) / Double(total) : 0) }
        defer { removeDownload(path) }
        _ = try await blocking { () throws(CacheError) in try cache.install(archiveAt: path, expected: bundle) }
        progress?(1)
        return FetchResult(bundle: bundle, source: .archive, bytesDownloaded: outcome.bytes + manifestBytes, requests: requests + outcome.requests)
    }

    private func fetchObjects(_ manifest: Manifest, bytes manifestBytes: [UInt8], bundle: Digest, missing: Set<Digest>) async throws(TransportError) -> FetchResult {
        let folder = downloads + "/" + bundle.hex + ".objects"
        do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
            throw TransportError(.cache, "cannot create a download folder: \(error)")
        }
        defer { removeDownload(folder) }
        var sizes: [Digest: Int64] = [:]
        for file in manifest.files { sizes[file.digest] = file.size }
        let total = max(1, missing.reduce(0) { $0 + (sizes[$1] ?? 0) })
        let queue = missing.sorted()
        var files: [Digest: String] = [:]
        var received: Int64 = Int64(manifestBytes.count)
        var done: Int64 = 0
        var requests = 1
        let outcome: Result<Void, TransportError> = await withTaskGroup(of: Result<(Digest, Int, Int64), TransportError>.self) { group in
            var next = 0
            func start() {
                guard next < queue.count else { return }
                let object = queue[next]
                next += 1
                group.addTask { await fetchObject(object, into: folder) }
            }
            for _ in 0..<configuration.parallelism { start() }
            while let result = await group.next() {
                switch result {
                case .success(let (object, tries, size)):
                    files[object] = folder + "/" + object.hex
                    requests += tries
                    received += size
                    done += sizes[object] ?? 0
                    progress?(min(0.99, Double(done) / Double(total)))
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
        _ = try await blocking { () throws(CacheError) in
            try cache.install(manifestBytes: manifestBytes, expected: bundle, objectFiles: downloaded)
        }
        progress?(1)
        return FetchResult(bundle: bundle, source: .objects, bytesDownloaded: received, requests: requests)
    }

    /// Downloads one object and checks its digest before keeping it.
    private func fetchObject(_ object: Digest, into folder: String) async -> Result<(Digest, Int, Int64), TransportError> {
        let url = origin.appendingPathComponent("objects/\(object.hex)")
        do throws(TransportError) {
            let (response, requests) = try await transport.send(
                HTTPRequest(url: url, timeout: configuration.requestTimeout), attempts: configuration.attempts)
            guard response.status == 200 else { throw TransportError(.unexpectedStatus, "cannot fetch an object", url: url, status: response.status) }
            guard SHA256Hasher.hash(response.body) == object else {
                throw TransportError(.digestMismatch, "the server sent bytes that do not hash to \(object)", url: url)
            }
            do { try response.body.write(to: URL(fileURLWithPath: folder + "/" + object.hex)) } catch {
                throw TransportError(.cache, "cannot keep a downloaded object: \(error)", url: url)
            }
            return .success((object, requests, Int64(response.body.count)))
        } catch {
            return .failure(error)
        }
    }

    private func removeDownload(_ path: String) {
        do {
            try FileManager.default.removeItem(atPath: path)
            if FileManager.default.fileExists(atPath: path + ".etag") { try FileManager.default.removeItem(atPath: path + ".etag") }
        } catch {
            // A leftover download is harmless: the next fetch resumes or replaces it.
        }
    }

    /// Runs a blocking cache call off the cooperative thread pool.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () throws(CacheError) -> T) async throws(TransportError) -> T {
        let result: Result<T, CacheError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do throws(CacheError) { continuation.resume(returning: .success(try body())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw TransportError(.cache, error.message, cacheError: error)
        }
    }
}
