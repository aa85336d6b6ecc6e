import Foundation
import LarderFormat
import LarderSystem

extension OriginPublisher {
    /// Publishes archives to a target that is not a local folder (an object store) in the
    /// order that keeps every state a device can see consistent: a bundle's objects, then
    /// their gzip copies, then its archive, then its manifest (each put only where absent);
    /// then the journey's history, then its document (each replaced only if unchanged since
    /// read). A publish stopped anywhere leaves the document pointing at a complete bundle, and
    /// the next one completes what is missing.
    ///
    /// Each archive is verified and laid out entry by entry in `staging` (a local folder,
    /// emptied after each bundle), from where its files are sent. A bundle whose manifest is
    /// on the target already is complete there (the manifest goes last) and is not sent again.
    /// - Throws: ``PackFailure`` with ``PackError/Code/originUnavailable`` or
    ///   ``PackError/Code/originTransfer`` for what the target refused, the other codes as
    ///   for a folder.
    public static func publish(
        archives: [String], to target: some PublishTarget, journey: JourneyPublication?, staging: String
    ) throws(PackFailure) -> PublishReport {
        if let journey {
            guard JourneyPublication.isValidJourneyID(journey.id) else {
                throw PackFailure([PackError(.invalidConfiguration, "journey id '\(journey.id)' may use only letters, digits, '_', '-' and '.', and may not end in '.history'")])
            }
            if let key = journey.key {
                throw PackFailure([
                    PackError(.invalidConfiguration, "\(target.name) has no access maps to grant '\(key)': a CDN in front gates journeys by X-Larder-Key (README)")
                ])
            }
        }
        var report = PublishReport(bundles: [], journey: nil, changed: [])
        do throws(PublishError) {
            for archive in archives { report.bundles.append(try sendBundle(archive, to: target, staging: staging, changed: &report.changed)) }
            if let journey, let last = report.bundles.last {
                var changed = report.changed
                report.journey = try target.changingMutableFiles { () throws(PublishError) -> JourneyDocument in
                    try publishJourney(journey, bundle: last.digest, target: target, changed: &changed)
                }
                report.changed = changed
            }
        } catch {
            throw PackFailure([error.packError])
        }
        return report
    }

    /// Uploads an existing origin folder (what `larder publish --origin <folder>` wrote) to a
    /// target in the same safe order: every object, every gzip copy, every archive, every
    /// manifest, then each journey's history and document where the folder's revision is
    /// newer than the target's. The access maps stay behind: they are nginx's (a CDN gates
    /// keys its own way).
    public static func upload(folder: String, to target: some PublishTarget) throws(PackFailure) -> PublishReport {
        var report = PublishReport(bundles: [], journey: nil, changed: [])
        do throws(PublishError) {
            let bundles = try files(in: folder, "bundles")
            let archives = bundles.filter { $0.hasSuffix(".tar.gz") && !$0.hasPrefix(".") }.map { "bundles/" + $0 }
            let manifests = bundles.filter { !$0.contains(".") }.map { "bundles/\($0)/manifest.json" }
                .filter { FileManager.default.fileExists(atPath: folder + "/" + $0) }
            // A bundle whose manifest the target has is complete there (the manifest goes
            // last): its objects, archive and manifest are not sent again.
            var complete = Set<String>()
            var completeObjects = Set<String>()
            for manifestPath in manifests where try target.size(of: manifestPath) != nil {
                let bytes = try PublishError.local { () throws(FormatError) -> [UInt8] in try ReadableFile(path: folder + "/" + manifestPath).readAll(limit: 64 << 20) }
                let manifest = try PublishError.local { () throws(FormatError) -> Manifest in try Manifest(decoding: bytes) }
                complete.insert(manifestPath)
                complete.insert("bundles/\(SHA256Hasher.hash(bytes).hex).tar.gz")
                for file in manifest.files { completeObjects.insert(file.digest.hex) }
            }
            let objects = try files(in: folder, "objects").filter { !$0.hasPrefix(".") && !completeObjects.contains(String($0.prefix(64))) }
            let plain = objects.filter { !$0.hasSuffix(".gz") }.map { "objects/" + $0 }
            let compressed = objects.filter { $0.hasSuffix(".gz") }.map { "objects/" + $0 }
            var written = 0
            for group in [plain, compressed, archives.filter { !complete.contains($0) }] {
                let sent = try send(group, from: folder, to: target)
                report.changed += sent
                if group == plain { written = sent.count }
            }
            report.changed += try send(manifests.filter { !complete.contains($0) }, from: folder, to: target)
            for manifestPath in manifests {
                let bytes = try PublishError.local { () throws(FormatError) -> [UInt8] in try ReadableFile(path: folder + "/" + manifestPath).readAll(limit: 64 << 20) }
                let manifest = try PublishError.local { () throws(FormatError) -> Manifest in try Manifest(decoding: bytes) }
                report.bundles.append(PublishReport.Bundle(name: manifest.name, digest: SHA256Hasher.hash(bytes), objectsWritten: 0, filesWritten: 0))
            }
            if let first = report.bundles.indices.first { report.bundles[first].objectsWritten = written }
            let journeys = try files(in: folder, "journeys").filter { $0.hasSuffix(".json") && !$0.hasSuffix(".history.json") && !$0.hasPrefix(".") }
            for file in journeys {
                let id = String(file.dropLast(".json".count))
                report.changed += try copyJourney(id, from: LocalFolderTarget(folder: folder), to: target)
            }
        } catch {
            throw PackFailure([error.packError])
        }
        return report
    }

    /// Verifies one archive into `staging` and sends its files in the safe order.
    private static func sendBundle(_ archive: String, to target: some PublishTarget, staging: String, changed: inout [String]) throws(PublishError)
        -> PublishReport.Bundle
    {
        let (manifest, manifestBytes) = try PublishError.local { () throws(FormatError) -> (Manifest, [UInt8]) in
            try BundleVerifier.readManifest(from: try ArchiveReader(path: archive))
        }
        let digest = SHA256Hasher.hash(manifestBytes)
        let manifestPath = "bundles/\(digest.hex)/manifest.json"
        if try target.size(of: manifestPath) != nil {
            return PublishReport.Bundle(name: manifest.name, digest: digest, objectsWritten: 0, filesWritten: 0)
        }
        let folder = staging + "/" + digest.hex
        try PublishError.local { () throws(FormatError) in
            try FormatError.typed {
                if FileManager.default.fileExists(atPath: folder) { try FileManager.default.removeItem(atPath: folder) }
                for sub in ["/objects", "/bundles"] { try FileManager.default.createDirectory(atPath: folder + sub, withIntermediateDirectories: true) }
            }
        }
        defer {
            do { try FileManager.default.removeItem(atPath: folder) } catch { print("larder: could not remove the staging folder \(folder): \(error)") }
        }
        var staged: [String] = []
        let bundle = try PublishError.local { () throws(FormatError) -> PublishReport.Bundle in
            // A scratch copy, removed after the upload: nothing in it needs to survive a power cut.
            try publishBundle(archive, to: folder, changed: &staged, durable: false)
        }
        let objects = staged.filter { $0.hasPrefix("objects/") && !$0.hasSuffix(".gz") }
        let compressed = staged.filter { $0.hasPrefix("objects/") && $0.hasSuffix(".gz") }
        let sentObjects = try send(objects, from: folder, to: target)
        changed += sentObjects
        changed += try send(compressed, from: folder, to: target)
        changed += try send(["bundles/\(digest.hex).tar.gz"], from: folder, to: target)
        changed += try send([manifestPath], from: folder, to: target)
        return PublishReport.Bundle(name: bundle.name, digest: digest, objectsWritten: sentObjects.count, filesWritten: staged.count)
    }

    /// How many files are sent at once: each upload mostly waits for the service.
    static let uploadWidth = 6

    /// Puts each file of `folder` at the same path of the target where absent, a few at a
    /// time (none more once one failed); returns the paths this call wrote.
    private static func send(_ paths: [String], from folder: String, to target: some PublishTarget) throws(PublishError) -> [String] {
        let failed = Locked(false)
        let outcomes = paths.parallelMap(width: uploadWidth) { path -> Result<Bool, PublishError>? in
            guard !failed.withLock({ $0 }) else { return nil }
            do throws(PublishError) {
                guard let content = OriginContent(path: path) else { throw PublishError(.local, "not a file of an origin", path: folder + "/" + path) }
                let name = (path as NSString).lastPathComponent
                let sha256: Digest? = content == .object ? try PublishError.local { () throws(FormatError) -> Digest in try Digest(hex: name) } : nil
                return .success(try target.putIfAbsent(path, from: folder + "/" + path, sha256: sha256, content: content))
            } catch {
                failed.withLock { $0 = true }
                return .failure(error)
            }
        }
        var written: [String] = []
        for (path, outcome) in zip(paths, outcomes) {
            switch outcome {
            case .success(let wrote)?: if wrote { written.append(path) }
            case .failure(let error)?: throw error
            case nil: continue  // skipped because another failed: its error is thrown in this loop
            }
        }
        return written
    }

    /// Copies a journey's history and document from one target to another when the source's
    /// revision is newer (the history first, each replaced only if unchanged since read).
    private static func copyJourney(_ id: String, from source: LocalFolderTarget, to target: some PublishTarget) throws(PublishError) -> [String] {
        let local = try JourneyState.read(journey: id, from: source)
        guard let document = local.document else { return [] }
        for attempt in 0..<journeyAttempts {
            pauseAfterLosingRace(attempt)
            let remote = try JourneyState.read(journey: id, from: target)
            if let current = remote.document, current.revision >= document.revision { return [] }
            let historyPath = JourneyHistory.path(journey: id)
            var changed: [String] = []
            if local.history != remote.history {
                guard try target.replace(historyPath, with: local.history.bytes, content: .history, expecting: remote.historyValidator) else { continue }
                changed.append(historyPath)
            }
            let documentPath = JourneyState.documentPath(id)
            guard try target.replace(documentPath, with: document.canonicalBytes, content: .document, expecting: remote.documentValidator) else { continue }
            return changed + [documentPath]
        }
        throw contended(JourneyPublication(id: id, key: nil), target)
    }

    private static func files(in folder: String, _ sub: String) throws(PublishError) -> [String] {
        let path = folder + "/" + sub
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        do { return try FileManager.default.contentsOfDirectory(atPath: path).sorted() } catch {
            throw PublishError(.local, "cannot list the folder: \(error.localizedDescription)", path: path)
        }
    }
}

extension PublishError {
    /// The error `larder publish` reports: the target's refusals as
    /// ``PackError/Code/originUnavailable`` or ``PackError/Code/originTransfer``, local and
    /// format failures as a folder's publish reports them.
    public var packError: PackError {
        switch code {
        case .credentials, .noSuchBucket, .notObjectStore, .unavailable, .contended, .unexpected, .damaged:
            return PackError(.originUnavailable, description)
        case .connection:
            return PackError(.originTransfer, description)
        default:
            let error = formatError
            return PackError(error.code == .io || error.code == .noSpace ? .outputFailed : .invalidConfiguration, error.detail, path: error.path, cause: error)
        }
    }
}
