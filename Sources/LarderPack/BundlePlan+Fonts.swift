import LarderFormat

extension BundlePlan {
    /// Runs the font pipeline (``FontPipeline``) over an analysed folder.
    /// - Parameters:
    ///   - essential: the essential files as the first analysis links them.
    ///   - included: the files `include` patterns cover (always packed).
    static func planFonts(
        _ settings: FontSettings, tree: SourceTree, analyses: [String: FileAnalysis],
        byExtension: [String: (mediaType: String, role: FileRole)], digests: [String: Digest], essential: Set<String>,
        included: Set<String>, strict: Bool, cache: FontCache
    ) -> FontPlan {
        let texts = tree.files.filter { byExtension[$0.path]!.role == .document || byExtension[$0.path]!.role == .style }
        var otherUses = included
        for analysis in analyses.values { otherUses.formUnion(analysis.nonFontUses) }
        let plan = FontPipeline.plan(
            .init(
                settings: settings, files: Dictionary(uniqueKeysWithValues: tree.files.map { ($0.path, $0) }), digests: digests,
                texts: texts.map { ($0.path, analyses[$0.path]!) }, essential: essential, otherUses: otherUses,
                takenPaths: Set(tree.files.map(\.path)), strict: strict, cache: cache))
        return plan
    }

    /// Applies a font plan once the files it rewrites were analysed again with their
    /// ``FontPlan/rewrites``: links to the converted files replace links to the sources no
    /// longer packed, the converted files join the tree and those sources leave it.
    static func applyFonts(
        _ plan: FontPlan, tree: inout SourceTree, analyses: inout [String: FileAnalysis],
        byExtension: inout [String: (mediaType: String, role: FileRole)]
    ) {
        for path in Array(analyses.keys) {
            var links = analyses[path]!.links.filter { !plan.dropped.contains($0.target) }
            for target in plan.links[path] ?? [] where !links.contains(where: { $0.target == target }) {
                links.append(Link(target: target, loads: true))
            }
            analyses[path]!.links = links
        }
        tree.files.removeAll { plan.dropped.contains($0.path) }
        for path in plan.dropped {
            analyses[path] = nil
            byExtension[path] = nil
        }
        for derived in plan.derived {
            tree.files.append(SourceFile(path: derived.path, location: "", size: Int64(derived.bytes.count)))
            analyses[derived.path] = FileAnalysis(digest: derived.digest, size: Int64(derived.bytes.count), edits: [], stamp: nil)
            byExtension[derived.path] = MediaType.classify(derived.path)
        }
        tree.files.sort { BundlePath.precedes($0.path, $1.path) }
    }
}
