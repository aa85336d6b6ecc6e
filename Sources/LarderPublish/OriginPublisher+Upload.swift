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
    /// on the target already was sent whole once (the manifest goes last); what devices fetch
    /// of it (each object, the archive, the manifest) is asked for (a HEAD each in a bucket),
    /// and what the target lost since, or holds at another size, is sent again before any
    /// journey points at it (``PublishReport/repaired``).
    /// - Throws: ``PublishError`` as reported (``PublishError/reported``):
    ///   ``PublishError/Code/originUnavailable`` or
    ///   ``PublishError/Code/originTransfer`` for what the target refused, the
    ///   other codes as for a folder.
    /// - Parameters:
    ///   - archives: the archives to publish (`larder pack`'s), in order; the journey points at
    ///     the last.
    ///   - target: where the origin's files go (a bucket's `S3Target`, or a `LocalFolderTarget`).
    ///   - journey: the journey to point at the last archive; nil to publish the bundles alone.
    ///   - staging: a local folder to lay each archive out in, emptied after each bundle.
    ///   - progress: told the bytes of the files sent (or found there) after each, of the files
    ///     to send of the archives laid out so far; nil (the default) for no reports.
    public static func publish(
        archives: [String], to target: some PublishTarget, journey: JourneyPublication?, staging: String,
        progress: (@Sendable (PublishProgress) -> Void)? = nil
    ) throws(PublishError) -> PublishReport {
        if let journey {
            guard JourneyPublication.isValidJourneyID(journey.id) else {
                throw PublishError(.invalidIdentifier, "journey id '\(journey.id)' may use only letters, digits, '_', '-' and '.', and may not end in '.history'")
            }
            if let key = journey.key {
                throw PublishError(
                    .invalidConfiguration, "\(target.name) has no access maps to grant '\(key)': a CDN in front gates journeys by X-Larder-Key (Docs/Buckets.md)")
            }
        }
        var report = PublishReport(bundles: [], journey: nil, changed: [])
        do throws(PublishError) {
            let patches = journey.map { PatchSource.journey($0.id, on: target) }
            let counter = PublishProgressCounter(progress)
            for archive in archives {
                report.bundles.append(
                    try sendBundle(
                        archive, to: target, staging: staging, patches: patches, changed: &report.changed, repaired: &report.repaired, progress: counter))
            }
            if let journey, let last = report.bundles.last {
                var changed = report.changed
                report.journey = try target.changingMutableFiles { () throws(PublishError) -> JourneyDocument in
                    try publishJourney(journey, bundle: last.digest, target: target, changed: &changed)
                }
                report.changed = changed
            }
        } catch {
            throw error.reported
        }
        return report
    }

    /// Uploads an existing origin folder (what `larder publish --origin <folder>` wrote) to a
    /// target in the same safe order: every object, every gzip copy, the patches and patch
    /// index of each bundle sent, every archive, every manifest, then each journey's history and document where the folder's revision is
    /// newer than the target's. The access maps stay behind: they are nginx's (a CDN gates
    /// keys its own way).
    ///
    /// Every file to send is checked first, before anything is sent (`OriginFolderCheck`):
    /// read where it is (no symbolic link followed, regular files only) and each the file its
    /// name says. A bundle whose manifest the target has was sent whole once: what devices
    /// fetch of it is asked for, and what the target lost is sent again from the folder.
    /// - Throws: ``PublishError`` as reported; ``PublishError/Code/invalidSource`` naming a file of the folder
    ///   that is not what its name says (nothing is sent then).
    /// - Parameters:
    ///   - folder: the origin folder to upload.
    ///   - target: where its files go.
    ///   - progress: told the bytes of the files sent (or found there) after each, of all the
    ///     files to send; nil (the default) for no reports.
    public static func upload(
        folder: String, to target: some PublishTarget, progress: (@Sendable (PublishProgress) -> Void)? = nil
    ) throws(PublishError) -> PublishReport {
        var report = PublishReport(bundles: [], journey: nil, changed: [])
        do throws(PublishError) {
            let bundles = try files(in: folder, "bundles")
            let archives = bundles.filter { $0.hasSuffix(".tar.gz") && !$0.hasPrefix(".") }.map { "bundles/" + $0 }
            let manifestPaths = bundles.filter { !$0.contains(".") }.map { "bundles/\($0)/manifest.json" }
                .filter { FileManager.default.fileExists(atPath: folder + "/" + $0) }
            var digests: [String: Digest] = [:]
            var manifests: [(path: String, manifest: Manifest, digest: Digest, size: Int64)] = []
            for path in manifestPaths {
                let (manifest, digest, size) = try OriginFolderCheck.manifest(path, in: folder)
                digests[path] = digest
                manifests.append((path, manifest, digest, size))
            }
            // A bundle whose manifest the target has was sent whole once (the manifest goes
            // last): only what the target lost of it since is sent again.
            var complete = Set<String>()
            var completeObjects = Set<String>()
            var lost: [String] = []
            for bundle in manifests {
                guard let stored = try target.size(of: bundle.path) else { continue }
                complete.insert(bundle.path)
                let archive = "bundles/\(bundle.digest.hex).tar.gz"
                complete.insert(archive)
                for file in bundle.manifest.files { completeObjects.insert(file.digest.hex) }
                let archiveSize = archives.contains(archive) ? try localSize(folder + "/" + archive) : nil
                lost += try lostFiles(neededFiles(of: bundle.manifest, digest: bundle.digest, archiveSize: archiveSize), on: target)
                if stored != bundle.size { lost.append(bundle.path) }
            }
            if let missing = lost.first(where: { !FileManager.default.fileExists(atPath: folder + "/" + $0) }) {
                throw PublishError(
                    FormatError(
                        .missingEntry, "the origin lost \(missing) of a bundle published there, and \(folder) has no copy to send again; publish the bundle's archive again",
                        path: target.name + "/" + missing))
            }
            let objects = try files(in: folder, "objects").filter { !$0.hasPrefix(".") && !completeObjects.contains(String($0.prefix(64))) }
            let plain = Set(objects.filter { !$0.hasSuffix(".gz") }.map { "objects/" + $0 } + lost.filter { $0.hasPrefix("objects/") }).sorted()
            let compressed = objects.filter { $0.hasSuffix(".gz") }.map { "objects/" + $0 }
            let sentArchives = Set(archives.filter { !complete.contains($0) } + lost.filter { $0.hasSuffix(".tar.gz") }).sorted()
            let sentManifests = Set(manifests.map(\.path).filter { !complete.contains($0) } + lost.filter { $0.hasSuffix("/manifest.json") }).sorted()
            // The patch index of each bundle sent, and the patches it names that the folder has.
            var sentIndexes: [String] = []
            var sentPatches = Set<String>()
            for bundle in manifests where !complete.contains(bundle.path) {
                let path = PatchIndex.path(bundle: bundle.digest)
                guard FileManager.default.fileExists(atPath: folder + "/" + path) else { continue }
                let (index, digest) = try OriginFolderCheck.patchIndex(path, in: folder)
                digests[path] = digest
                sentIndexes.append(path)
                for entry in index.entries where FileManager.default.fileExists(atPath: folder + "/" + PatchIndex.path(of: entry.patch)) {
                    sentPatches.insert(PatchIndex.path(of: entry.patch))
                }
            }
            let patches = sentPatches.sorted()
            // Every file is checked before the first is sent, the journeys' files too.
            let journeys = try files(in: folder, "journeys").filter { $0.hasSuffix(".json") && !$0.hasSuffix(".history.json") && !$0.hasPrefix(".") }
            let localJourneys = try journeys.map { file throws(PublishError) -> (String, JourneyState) in
                let id = String(file.dropLast(".json".count))
                return (id, try JourneyState.read(journey: id, from: LocalFolderTarget(folder: folder)))
            }
            let toCheck = (plain + compressed + patches + sentArchives).filter { digests[$0] == nil }
            let checked = toCheck.parallelMap(width: Processors.active) { path -> Result<Digest, PublishError> in
                do throws(PublishError) { return .success(try OriginFolderCheck.check(path, in: folder)) } catch { return .failure(error) }
            }
            for (path, outcome) in zip(toCheck, checked) {
                switch outcome {
                case .success(let digest): digests[path] = digest
                case .failure(let error): throw error
                }
            }
            var written = 0
            let groups = [plain, compressed, patches, sentIndexes, sentArchives, sentManifests]
            let counter = PublishProgressCounter(progress)
            if let counter { counter.expect(try localSize(of: groups.joined(), in: folder)) }
            for group in groups {
                let sent = try send(group, from: folder, to: target, digests: digests, progress: counter)
                report.changed += sent
                if group == plain { written = sent.count }
            }
            report.repaired = lost.filter { report.changed.contains($0) }
            for bundle in manifests {
                report.bundles.append(PublishReport.Bundle(name: bundle.manifest.name, digest: bundle.digest, objectsWritten: 0, filesWritten: 0))
            }
            if let first = report.bundles.indices.first { report.bundles[first].objectsWritten = written }
            for (id, local) in localJourneys { report.changed += try copyJourney(id, local, to: target) }
        } catch {
            throw error.reported
        }
        return report
    }

    /// Verifies one archive into `staging` and sends its files in the safe order; for a bundle
    /// the target has a manifest of, only what the target lost of it since.
    private static func sendBundle(
        _ archive: String, to target: some PublishTarget, staging: String, patches: PatchSource?, changed: inout [String],
        repaired: inout [String], progress: PublishProgressCounter?
    ) throws(PublishError) -> PublishReport.Bundle {
        let verified = try PublishError.local { () throws(FormatError) -> VerifiedManifest in
            try BundleVerifier.readManifest(from: try ArchiveReader(path: archive))
        }
        let (manifest, digest) = (verified.manifest, verified.digest)
        let manifestPath = "bundles/\(digest.hex)/manifest.json"
        var lost: [String]?
        if let stored = try target.size(of: manifestPath) {
            var missing = try lostFiles(neededFiles(of: manifest, digest: digest, archiveSize: try localSize(archive)), on: target)
            if stored != Int64(verified.bytes.count) { missing.append(manifestPath) }
            guard !missing.isEmpty else { return PublishReport.Bundle(name: manifest.name, digest: digest, objectsWritten: 0, filesWritten: 0) }
            lost = missing
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
            try publishBundle(archive, to: folder, changed: &staged, durable: false, patches: patches)
        }
        let wanted = lost.map(Set.init) ?? Set(staged)
        let objects = staged.filter { wanted.contains($0) && $0.hasPrefix("objects/") && !$0.hasSuffix(".gz") }
        let compressed = staged.filter { wanted.contains($0) && $0.hasPrefix("objects/") && $0.hasSuffix(".gz") }
        // Patches, then their index, before the archive and the manifest that completes the bundle.
        let groups =
            [objects, compressed, staged.filter { wanted.contains($0) && $0.hasPrefix("patches/") },
             staged.filter { wanted.contains($0) && $0.hasSuffix("/patches.json") }]
            + ["bundles/\(digest.hex).tar.gz", manifestPath].filter(wanted.contains).map { [$0] }
        if let progress { progress.expect(try localSize(of: groups.joined(), in: folder)) }
        let sentObjects = try send(objects, from: folder, to: target, progress: progress)
        var sent = sentObjects
        for group in groups.dropFirst() { sent += try send(group, from: folder, to: target, progress: progress) }
        changed += sent
        if let lost { repaired += lost.filter(sent.contains) }
        return PublishReport.Bundle(name: bundle.name, digest: digest, objectsWritten: sentObjects.count, filesWritten: sent.count)
    }

    /// How many files are sent at once: each upload mostly waits for the service.
    static let uploadWidth = 6

    /// Puts each file of `folder` at the same path of the target where absent, a few at a
    /// time (none more once one failed); returns the paths this call wrote.
    /// - Parameter digests: the SHA-256 each file was checked to have, by path; an object
    ///   without one must hash to its name. What is sent must hash to it (S3Target's requests
    ///   hold the last byte back otherwise).
    /// - Parameter progress: counts each file's size once put (or found there).
    private static func send(
        _ paths: [String], from folder: String, to target: some PublishTarget, digests: [String: Digest] = [:], progress: PublishProgressCounter? = nil
    ) throws(PublishError) -> [String] {
        let failed = Locked(false)
        let outcomes = paths.parallelMap(width: uploadWidth) { path -> Result<Bool, PublishError>? in
            guard !failed.withLock({ $0 }) else { return nil }
            do throws(PublishError) {
                guard let content = OriginContent(path: path) else { throw PublishError(.local, "not a file of an origin", path: folder + "/" + path) }
                let name = (path as NSString).lastPathComponent
                var sha256 = digests[path]
                if sha256 == nil, content == .object || content == .patch { sha256 = try PublishError.local { () throws(FormatError) -> Digest in try Digest(hex: name) } }
                let wrote = try target.putIfAbsent(path, from: folder + "/" + path, sha256: sha256, content: content)
                if let progress { progress.advance(by: try localSize(folder + "/" + path)) }
                return .success(wrote)
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

    /// The size of a local file, where it is.
    private static func localSize(_ path: String) throws(PublishError) -> Int64 {
        do { return try FileStatus.ofLink(path).size } catch {
            throw PublishError(.local, "cannot stat: \(error)", path: path)
        }
    }

    /// The sizes of files of `folder` added up.
    private static func localSize(of paths: some Sequence<String>, in folder: String) throws(PublishError) -> Int64 {
        var total: Int64 = 0
        for path in paths { total += try localSize(folder + "/" + path) }
        return total
    }

    /// Copies a journey's history and document, as read from the folder, to a target when
    /// their revision is newer than the target's (the history first, each replaced only if
    /// unchanged since read).
    private static func copyJourney(_ id: String, _ local: JourneyState, to target: some PublishTarget) throws(PublishError) -> [String] {
        guard let document = local.document else { return [] }
        var watch = ValidatorWatch()
        for attempt in 0..<journeyAttempts {
            pauseAfterLosingRace(attempt)
            let remote = try JourneyState.read(journey: id, from: target)
            try watch.observe(remote, journey: id, on: target)
            if let current = remote.document, current.revision >= document.revision { return [] }
            let historyPath = JourneyHistory.path(journey: id)
            var changed: [String] = []
            let history = local.history.bounded(for: document)
            if history != remote.history {
                guard try target.replace(historyPath, with: history.bytes, content: .history, expecting: remote.historyValidator) else { continue }
                changed.append(historyPath)
            }
            let documentPath = JourneyState.documentPath(id)
            guard try target.replace(documentPath, with: document.canonicalBytes, content: .document, expecting: remote.documentValidator) else { continue }
            return changed + [documentPath]
        }
        throw contended(JourneyPublication(id: id, key: nil), target)
    }

    /// The names in a subfolder of an origin folder, sorted; none when there is no such
    /// subfolder. A subfolder that is a symbolic link is refused: its files would come from
    /// wherever it points.
    private static func files(in folder: String, _ sub: String) throws(PublishError) -> [String] {
        let path = folder + "/" + sub
        do { _ = try FileStatus.ofLink(path) } catch {
            if error == .notFound { return [] }
            throw PublishError(.local, "cannot stat the folder: \(error)", path: path)
        }
        try OriginFolderCheck.checkFolders(of: sub + "/-", in: folder)
        do { return try FileManager.default.contentsOfDirectory(atPath: path).sorted() } catch {
            throw PublishError(.local, "cannot list the folder: \(error.localizedDescription)", path: path)
        }
    }
}
