import LarderFormat
import LarderSystem

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
    /// Files that nothing reachable from the entry document refers to and no `include`
    /// pattern covers (still packed).
    public var unreferenced: [String]
    /// Remote URLs the pages load (navigation links are not listed).
    public var remoteReferences: [RemoteReference]
    /// How many font references (`@font-face` sources, font preloads and other HTML
    /// references to font files) were rewritten to the `larder-font:` scheme.
    public var rewrittenFontReferences: Int
    /// Everything noticed that did not stop the pack, in a stable order: by kind, then place.
    public var warnings: [PackWarning]
    /// Each `@font-face` rule's outcome, and what the font cache did.
    public var fonts = FontPackReport()
    var analyses: [String: FileAnalysis]
    /// The bytes of the files the packer made (converted fonts), by bundle path.
    var generatedFiles: [String: [UInt8]] = [:]
}

extension BundlePlan {
    /// Analyses a source folder: reads `larder.json`, lists the folder without what its
    /// `exclude` patterns match, hashes every file, checks every reference of every HTML and
    /// CSS file, rewrites font references, and works out the essential set (the entry
    /// document, the files `include` marks essential, and everything they load through HTML
    /// and CSS).
    /// - Parameters:
    ///   - strict: remote references a page loads, fonts that cannot be converted and (with
    ///     `"keepUsed": false`) characters no subset holds are errors rather than warnings.
    ///   - output: the output folder's bundle path when it is inside the source: left out
    ///     (``SourceTree/scan(root:excluding:output:)``).
    ///   - fontCache: where converted fonts are kept between packs.
    ///   - source: the source folder, holding a `larder.json`.
    /// - Throws: ``PackFailure`` listing every problem found.
    public static func analyse(
        source: String, strict: Bool = false, output: String? = nil, fontCache: FontCacheLocation = .standard
    ) throws(PackFailure) -> BundlePlan {
        let defaultName = source.split(separator: "/").last.map(String.init) ?? "bundle"
        var configuration = BundleConfiguration(name: defaultName)
        if let bytes = try SourceTree.configurationBytes(root: source) {
            do { configuration = try BundleConfiguration(parsing: bytes, defaultName: defaultName) } catch {
                throw PackFailure([error])
            }
        }
        var tree = try SourceTree.scan(root: source, excluding: configuration.exclude, output: output)
        let runtime = try addRuntime(configuration, to: &tree)
        var byExtension = Dictionary(uniqueKeysWithValues: tree.files.map { ($0.path, MediaType.classify($0.path)) })
        let isExcluded = { (path: String) in configuration.exclude.contains { $0.covers(file: path) } }
        guard let entryRole = byExtension[configuration.entry] else {
            let why = isExcluded(configuration.entry) ? "is excluded by an 'exclude' pattern" : "does not exist"
            throw PackFailure([
                PackError(.invalidConfiguration, "entry document '\(configuration.entry)' \(why)", path: BundleConfiguration.fileName)
            ])
        }
        guard entryRole.role == .document else {
            throw PackFailure([
                PackError(.invalidConfiguration, "entry '\(configuration.entry)' is not an HTML document", path: BundleConfiguration.fileName)
            ])
        }
        let knownPaths = Set(tree.files.map(\.path))
        let isText = { (path: String) in byExtension[path]!.role == .document || byExtension[path]!.role == .style }

        // Files that are neither HTML nor CSS are only hashed, first: the documents and
        // stylesheets that use them as fonts are rewritten with their digests.
        var errors: [PackError] = []
        var analyses: [String: FileAnalysis] = [:]
        let collectCharacters = configuration.fonts.splitsFaces
        if let runtime { analyses[runtime.path] = runtime.analysis }
        let binaries = tree.files.filter { !isText($0.path) && analyses[$0.path] == nil }
        let classes = byExtension
        let binaryResults = binaries.parallelMap { file in
            Result { () throws(PackError) in try FileAnalysis.analyse(file, role: classes[file.path]!.role, knownPaths: []) }
        }
        for (file, result) in zip(binaries, binaryResults) {
            switch result {
            case .success(let analysis): analyses[file.path] = analysis
            case .failure(let error): errors.append(error)
            }
        }
        let digests = analyses.mapValues(\.digest)
        let fontsByExtension = Set(binaries.lazy.map(\.path).filter { byExtension[$0]!.role == .font })
        let texts = tree.files.filter { isText($0.path) }
        func analyseTexts(_ files: [SourceFile], fonts: Set<String>, rewrites: [String: FontRewrite] = [:]) {
            let results = files.parallelMap { file in
                Result { () throws(PackError) in
                    try FileAnalysis.analyse(
                        file, role: classes[file.path]!.role, knownPaths: knownPaths, digests: digests, fonts: fonts,
                        collectCharacters: collectCharacters, fontRewrite: rewrites[file.path])
                }
            }
            for (file, result) in zip(files, results) {
                switch result {
                case .success(let analysis): analyses[file.path] = analysis
                case .failure(let error): errors.append(error)
                }
            }
        }
        analyseTexts(texts, fonts: fontsByExtension)
        guard errors.isEmpty else { throw PackFailure(errors) }

        // A file an @font-face source or a font preload names is a font, whatever its
        // extension (`.svg`, an unknown one); HTML that names such a file otherwise (a rare
        // case) is analysed again so that reference is rewritten too.
        var fonts = fontsByExtension
        for file in texts {
            for path in analyses[file.path]!.fontTargets where digests[path] != nil { fonts.insert(path) }
        }
        let lateFonts = fonts.subtracting(fontsByExtension)
        if !lateFonts.isEmpty {
            let again = texts.filter { file in analyses[file.path]!.links.contains { lateFonts.contains($0.target) } }
            analyseTexts(again, fonts: fonts)
            guard errors.isEmpty else { throw PackFailure(errors) }
        }

        var remote: [RemoteReference] = []
        var warnings: [PackWarning] = []
        for file in tree.files {
            for reference in analyses[file.path]!.flagged {
                switch reference.target {
                case .local(let path):
                    let why = isExcluded(path) ? "which an 'exclude' pattern of larder.json leaves out" : "which is not in the bundle"
                    errors.append(
                        PackError(
                            .missingReference, "'\(reference.url)' refers to '\(path)', \(why)",
                            path: file.path, location: reference.location))
                case .escaping:
                    errors.append(
                        PackError(
                            .escapingReference, "'\(reference.url)' climbs out of the bundle folder",
                            path: file.path, location: reference.location))
                case .malformed(let reason):
                    errors.append(
                        PackError(
                            .malformedReference, "'\(reference.url.prefix(200))' is malformed, and no renderer would load it: \(reason)",
                            path: file.path, location: reference.location))
                case .remote(let url):
                    remote.append(RemoteReference(url: url, location: reference.location))
                    warnings.append(
                        PackWarning(
                            .remoteReference, "'\(url)' is loaded from the network, not from the bundle", path: file.path,
                            location: reference.location, url: url))
                    if strict {
                        errors.append(
                            PackError(
                                .remoteReference, "remote reference '\(url)' is not allowed with --strict; bundle the file instead",
                                path: file.path, location: reference.location))
                    }
                case .ignored:
                    break
                }
            }
        }
        guard errors.isEmpty else { throw PackFailure(errors) }

        // Roots: the entry, and what `include` declares loaded at run time.
        var roots: [(path: String, isEssential: Bool)] = [(configuration.entry, true)]
        // The runtime is loaded by script (an import), which the analysis does not follow.
        if let runtime { roots.append((runtime.path, true)) }
        var matchedIncludes = Set<Int>()
        for file in tree.files {
            var covered = false
            var essential = false
            for (index, rule) in configuration.include.enumerated() where rule.pattern.covers(file: file.path) {
                covered = true
                essential = essential || rule.essential
                matchedIncludes.insert(index)
            }
            if covered { roots.append((file.path, essential)) }
        }
        for (index, rule) in configuration.include.enumerated() where !matchedIncludes.contains(index) {
            warnings.append(
                PackWarning(
                    .unmatchedInclude, "include pattern '\(rule.pattern)' matches no file", path: BundleConfiguration.fileName))
        }
        let fontPlan = planFonts(
            configuration.fonts, tree: tree, analyses: analyses, byExtension: byExtension, digests: digests,
            essential: reachability(from: roots, analyses: analyses).essential,
            included: Set(roots.dropFirst().map(\.path)), strict: strict, cache: FontCache(fontCache))
        guard fontPlan.errors.isEmpty else { throw PackFailure(fontPlan.errors) }
        if !fontPlan.rewrites.isEmpty {
            analyseTexts(texts.filter { fontPlan.rewrites[$0.path] != nil }, fonts: fonts, rewrites: fontPlan.rewrites)
            guard errors.isEmpty else { throw PackFailure(errors) }
            applyFonts(fontPlan, tree: &tree, analyses: &analyses, byExtension: &byExtension)
        }
        warnings += fontPlan.warnings
        var (reached, essential) = reachability(from: roots, analyses: analyses)
        for derived in fontPlan.derived {
            if derived.essential { essential.insert(derived.path) } else { essential.remove(derived.path) }
        }
        let unreferenced = tree.files.map(\.path).filter { !reached.contains($0) }
        for path in unreferenced {
            warnings.append(PackWarning(.unreferenced, "packed, but nothing the entry loads refers to it", path: path))
        }
        var roles = byExtension
        for path in fonts where roles[path] != nil { roles[path]!.role = .font }
        let files = manifestFiles(tree: tree, analyses: analyses, roles: roles, essential: essential)
        let manifest: Manifest
        do {
            manifest = try Manifest(
                name: configuration.name, entry: configuration.entry, renderer: configuration.renderer, files: files)
        } catch {
            throw PackFailure([PackError(.invalidConfiguration, error.message, path: error.entry, cause: error)])
        }
        // Stable: grouped by kind, each kind in the order found (files in path order).
        let kindOrder: [PackWarning.Kind] = [
            .remoteReference, .unreferenced, .unmatchedInclude, .unconvertedFont, .uncoveredCharacter, .fontCache,
        ]
        warnings = kindOrder.flatMap { kind in warnings.filter { $0.kind == kind } }
        return BundlePlan(
            tree: tree, manifest: manifest, unreferenced: unreferenced, remoteReferences: remote,
            rewrittenFontReferences: analyses.values.reduce(0) { $0 + $1.edits.count }, warnings: warnings,
            fonts: fontPlan.report, analyses: analyses,
            generatedFiles: Dictionary(uniqueKeysWithValues: fontPlan.derived.map { ($0.path, $0.bytes) } + (runtime.map { [($0.path, $0.bytes)] } ?? [])))
    }

    /// Files reached from the roots through any reference, and the essential subset: the
    /// essential roots and what they load (through resources of documents and of the
    /// stylesheets and frames they load), not through navigation links.
    private static func reachability(
        from roots: [(path: String, isEssential: Bool)], analyses: [String: FileAnalysis]
    ) -> (reached: Set<String>, essential: Set<String>) {
        var reached = Set(roots.map(\.path))
        var essential = Set(roots.filter(\.isEssential).map(\.path))
        var queue = roots
        while let (path, isEssential) = queue.popLast() {
            for link in analyses[path]?.links ?? [] {
                let target = link.target
                let targetEssential = isEssential && link.loads
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
