import LarderFormat

/// A remote (`http:`, `https:`, `//`) reference found while analysing.
public struct RemoteReference: Sendable, Equatable {
    public var url: String
    public var location: SourceLocation
}

/// A source folder analysed and ready to archive: the manifest, the font rewrites, and what the
/// analysis noticed.
public struct BundlePlan: Sendable {
    public var tree: SourceTree
    public var manifest: Manifest
    /// Files that nothing reachable from the entry document refers to (still packed).
    public var unreferenced: [String]
    public var remoteReferences: [RemoteReference]
    /// How many font references (`@font-face` sources and `<link rel="preload" as="font">`
    /// hrefs) were rewritten to the `larder-font:` scheme.
    public var rewrittenFontReferences: Int
    var analyses: [String: FileAnalysis]
}

extension BundlePlan {
    /// Analyses a source folder: lists it, hashes every file, checks every reference of every
    /// HTML and CSS file, rewrites `@font-face` sources, and works out the essential set (the
    /// entry document and everything it loads through HTML and CSS).
    /// - Parameter strict: remote references are errors rather than warnings.
    /// - Throws: ``PackFailure`` listing every problem found.
    public static func analyse(source: String, strict: Bool = false) throws(PackFailure) -> BundlePlan {
        let tree = try SourceTree.scan(root: source)
        let defaultName = source.split(separator: "/").last.map(String.init) ?? "bundle"
        var configuration = BundleConfiguration(name: defaultName)
        if let bytes = tree.configuration {
            do { configuration = try BundleConfiguration(parsing: bytes, defaultName: defaultName) } catch {
                throw PackFailure([error])
            }
        }
        let roles = Dictionary(uniqueKeysWithValues: tree.files.map { ($0.path, MediaType.classify($0.path)) })
        guard let entryRole = roles[configuration.entry] else {
            throw PackFailure([
                PackError(.invalidConfiguration, "entry document '\(configuration.entry)' does not exist", path: BundleConfiguration.fileName)
            ])
        }
        guard entryRole.role == .document else {
            throw PackFailure([
                PackError(.invalidConfiguration, "entry '\(configuration.entry)' is not an HTML document", path: BundleConfiguration.fileName)
            ])
        }
        let knownPaths = Set(tree.files.map(\.path))

        // Fonts first: the stylesheets that use them are rewritten with their digests.
        let fonts = tree.files.filter { roles[$0.path]?.role == .font }
        let fontResults = fonts.parallelMap { file in
            Result { () throws(PackError) in try FileAnalysis.analyse(file, role: .font, knownPaths: [], fontDigests: [:]) }
        }
        var errors: [PackError] = []
        var fontDigests: [String: Digest] = [:]
        for (file, result) in zip(fonts, fontResults) {
            switch result {
            case .success(let analysis): fontDigests[file.path] = analysis.digest
            case .failure(let error): errors.append(error)
            }
        }
        let digests = fontDigests
        let results = tree.files.parallelMap { file in
            Result { () throws(PackError) in
                try FileAnalysis.analyse(file, role: roles[file.path]!.role, knownPaths: knownPaths, fontDigests: digests)
            }
        }
        var analyses: [String: FileAnalysis] = [:]
        for (file, result) in zip(tree.files, results) {
            switch result {
            case .success(let analysis): analyses[file.path] = analysis
            case .failure(let error): errors.append(error)
            }
        }
        guard errors.isEmpty else { throw PackFailure(errors) }

        var remote: [RemoteReference] = []
        for file in tree.files {
            for reference in analyses[file.path]!.references {
                switch reference.target {
                case .local(let path) where !knownPaths.contains(path):
                    errors.append(
                        PackError(
                            .missingReference, "'\(reference.url)' refers to '\(path)', which is not in the bundle",
                            path: file.path, location: reference.location))
                case .escaping:
                    errors.append(
                        PackError(
                            .escapingReference, "'\(reference.url)' climbs out of the bundle folder",
                            path: file.path, location: reference.location))
                case .remote(let url):
                    remote.append(RemoteReference(url: url, location: reference.location))
                    if strict {
                        errors.append(
                            PackError(
                                .remoteReference, "remote reference '\(url)' is not allowed with --strict; bundle the file instead",
                                path: file.path, location: reference.location))
                    }
                default:
                    break
                }
            }
        }
        guard errors.isEmpty else { throw PackFailure(errors) }

        let (reached, essential) = reachability(from: configuration.entry, analyses: analyses, roles: roles)
        let files = manifestFiles(tree: tree, analyses: analyses, roles: roles, essential: essential)
        let manifest: Manifest
        do {
            manifest = try Manifest(
                name: configuration.name, entry: configuration.entry, renderer: configuration.renderer, files: files)
        } catch {
            throw PackFailure([PackError(.invalidConfiguration, error.message, path: error.entry, cause: error)])
        }
        return BundlePlan(
            tree: tree, manifest: manifest,
            unreferenced: tree.files.map(\.path).filter { !reached.contains($0) },
            remoteReferences: remote,
            rewrittenFontReferences: analyses.values.reduce(0) { $0 + $1.edits.count },
            analyses: analyses)
    }

    /// Files reached from the entry through any reference, and the essential subset: reached
    /// through resources of the entry and of the stylesheets and frames it loads.
    private static func reachability(
        from entry: String, analyses: [String: FileAnalysis], roles: [String: (mediaType: String, role: FileRole)]
    ) -> (reached: Set<String>, essential: Set<String>) {
        var reached: Set<String> = [entry]
        var essential: Set<String> = [entry]
        var queue: [(path: String, isEssential: Bool)] = [(entry, true)]
        while let (path, isEssential) = queue.popLast() {
            for reference in analyses[path]?.references ?? [] {
                guard case .local(let target) = reference.target, analyses[target] != nil else { continue }
                let targetEssential = isEssential && reference.kind != .navigation
                if targetEssential && essential.insert(target).inserted {
                    reached.insert(target)
                    queue.append((target, true))
                } else if reached.insert(target).inserted {
                    queue.append((target, targetEssential))
                }
            }
        }
        return (reached, essential)
    }

    private static func manifestFiles(
        tree: SourceTree, analyses: [String: FileAnalysis], roles: [String: (mediaType: String, role: FileRole)],
        essential: Set<String>
    ) -> [Manifest.File] {
        tree.files.map { file in
            let analysis = analyses[file.path]!
            let (mediaType, role) = roles[file.path]!
            return Manifest.File(
                path: file.path, digest: analysis.digest, size: analysis.size, mediaType: mediaType, role: role,
                essential: essential.contains(file.path))
        }
    }
}
