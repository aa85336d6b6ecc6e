import Foundation
import LarderFormat
import LarderSystem

/// What the font pipeline decided for a bundle: the converted files to pack, the sources no
/// longer packed, how each stylesheet's `@font-face` rules and font preloads are rewritten, and
/// what to report.
struct FontPlan: Sendable {
    struct Derived: Sendable {
        var path: String
        var bytes: [UInt8]
        var digest: Digest
        var essential: Bool
    }

    /// By text file.
    var rewrites: [String: FontRewrite] = [:]
    /// The converted files a text file's rules now load, by text file.
    var links: [String: [String]] = [:]
    var derived: [Derived] = []
    /// Source fonts not packed: alternatives of converted faces nothing else uses.
    var dropped: Set<String> = []
    var report = FontPackReport()
    var warnings: [PackWarning] = []
    var errors: [PackError] = []
}

/// The font pipeline: every `@font-face` rule whose sources name bundle files gets one source, a
/// WOFF2 file made from its best source (WOFF2, then WOFF, then TrueType/OpenType) with Google's
/// encoder, split into `unicode-range` subsets with HarfBuzz's subsetter when `larder.json`
/// asks, each subset its own rule. Conversions run on every core through the font cache.
enum FontPipeline {
    /// Fonts larger than this are packed as they are (encoding one at Brotli quality 11 takes
    /// minutes). A WOFF or WOFF2 file whose font decodes to more than this (tables that inflate,
    /// a declared size) is refused with a ``PackError/Code/fontTooLarge`` error: nothing is
    /// inflated, and no device is sent a few bytes that inflate to a font engines refuse.
    static let conversionLimit: Int64 = 16 << 20
    /// In every subset file, whatever its range: the space (see ``plan(_:)``).
    static let alwaysKept = UnicodeRanges([0x20...0x20])

    struct Input {
        var settings: FontSettings
        var files: [String: SourceFile]
        var digests: [String: Digest]
        /// The HTML and CSS files, in path order, with their first analysis.
        var texts: [(path: String, analysis: FileAnalysis)]
        /// The essential files of the first analysis.
        var essential: Set<String>
        /// Files something uses other than as a font source or preload (or `include` covers).
        var otherUses: Set<String>
        /// Every path of the source folder.
        var takenPaths: Set<String>
        var strict: Bool
        var cache: FontCache
    }

    private struct Probe: Sendable {
        var container: FontTools.Container
        var characters: UnicodeRanges
    }

    private struct Job: Sendable {
        var key: String
        var file: String
        var ranges: UnicodeRanges?
        var features: FontFeatures
    }

    /// A rule to convert: which source, which subsets (nil ranges: the whole face; `written`:
    /// the `unicode-range` its rule gets, ``UnicodeRanges/coalesced(within:limit:)``).
    private struct Conversion {
        var file: String
        var container: FontTools.Container
        var subsets: [(name: String, ranges: UnicodeRanges?, written: UnicodeRanges?, job: String?)]
        var kept: [PackedFontFace.KeptCharacter]
        var primary: Int
    }

    static func plan(_ input: Input) -> FontPlan {
        var plan = FontPlan()
        plan.report.cacheFolder = input.cache.folder
        guard input.settings.woff2 else { return plan }
        let rules = input.texts.flatMap { text in text.analysis.fontFaces.filter { !$0.files.isEmpty }.map { (text.path, $0) } }
        guard !rules.isEmpty else { return plan }

        var allText = TextCharacters()
        var essentialText = TextCharacters()
        for text in input.texts {
            guard let characters = text.analysis.characters else { continue }
            allText.merge(characters)
            if input.essential.contains(text.path) { essentialText.merge(characters) }
        }
        let usedRanges = allText.ranges
        let essentialRanges = essentialText.ranges
        var features = FontFeatures(all: input.settings.features.contains("*"), tags: Set(input.settings.features.filter { $0 != "*" }))
        for text in input.texts { features.tags.formUnion(text.analysis.fontFeatures) }

        // 1. Every source file of a rule: is it a font the tools read, and which characters?
        let candidates = Array(Set(rules.flatMap { $0.1.files })).sorted()
        let probes = candidates.parallelMap { path in Result { () throws(FontProblem) in try probe(path, input) } }
        let probed = Dictionary(uniqueKeysWithValues: zip(candidates, probes))

        // 2. Each rule: its best readable source, and the subsets it is split into.
        var conversions: [Int: Conversion] = [:]
        var jobs: [String: Job] = [:]
        var jobOrder: [String] = []
        for (index, (file, rule)) in rules.enumerated() {
            let ranked = rule.files.enumerated().sorted { lhs, rhs in
                let left = (try? probed[lhs.element]!.get().container) ?? .other
                let right = (try? probed[rhs.element]!.get().container) ?? .other
                return left != right ? left > right : lhs.offset < rhs.offset
            }.map(\.element)
            guard let chosen = ranked.first(where: { (try? probed[$0]!.get()) != nil }), let probe = try? probed[chosen]!.get() else {
                unconverted(rule, in: file, problems: rule.files.map { ($0, probed[$0]!.failure!) }, input, &plan)
                continue
            }
            let settings = input.settings.resolved(family: rule.family, file: chosen)
            let declared = rule.hasUnicodeRange ? [] : settings.subsets
            var conversion = Conversion(file: chosen, container: probe.container, subsets: [], kept: [], primary: 0)
            func job(_ ranges: UnicodeRanges?) -> String? {
                if ranges == nil && probe.container == .woff2 { return nil }  // WOFF2 already: packed as it is
                // Every subset file holds the space glyph too (outside its unicode-range):
                // WebKitGTK draws nothing at all with a font that has none.
                let glyphs = ranges.map { $0.union(probe.characters.intersection(Self.alwaysKept)) }
                let operation = glyphs.map { "subset \($0)\nfeatures \(features)" } ?? "woff2"
                let key = "input \(input.digests[chosen]!)\noperation \(operation)\nquality \(input.settings.quality)\n\(FontTools.conversionDependencies)"
                if jobs[key] == nil {
                    jobs[key] = Job(key: key, file: chosen, ranges: glyphs, features: features)
                    jobOrder.append(key)
                }
                return key
            }
            if declared.isEmpty {
                conversion.subsets = [("all", nil, nil, job(nil))]
            } else {
                let used = usedRanges.intersection(probe.characters)
                let covered = UnicodeRanges(declared.flatMap(\.ranges.ranges))
                let uncovered = used.scalars.filter { !covered.contains($0) }
                let primary = declared.firstIndex { $0.ranges.intersects(used) } ?? 0
                var extra = UnicodeRanges()
                if settings.keepUsed {
                    extra = UnicodeRanges(scalars: uncovered)
                    conversion.kept = uncovered.map {
                        PackedFontFace.KeptCharacter(scalar: $0, location: allText.firstPlaces[$0]!, subset: declared[primary].name)
                    }
                } else {
                    for scalar in uncovered {
                        uncoveredCharacter(scalar, at: allText.firstPlaces[scalar]!, rule: rule, file: chosen, strict: input.strict, &plan)
                    }
                }
                for (position, subset) in declared.enumerated() {
                    let wanted = position == primary ? subset.ranges.union(extra) : subset.ranges
                    let effective = wanted.intersection(probe.characters)
                    guard !effective.isEmpty else { continue }  // the font has none of these characters
                    if position == primary { conversion.primary = conversion.subsets.count }
                    conversion.subsets.append((subset.name, effective, effective.coalesced(within: probe.characters), job(effective)))
                }
                if conversion.subsets.isEmpty { conversion.subsets = [("all", nil, nil, job(nil))] }
            }
            conversions[index] = conversion
        }

        // 3. The conversions, on every core, through the font cache.
        let results = jobOrder.map { jobs[$0]! }.parallelMap { job in
            Result { () throws(FontProblem) in try convert(job, input) }
        }
        let outputs = Dictionary(uniqueKeysWithValues: zip(jobOrder, results))

        // 4. Paths for the converted files, rules rewritten, sources dropped, reports.
        var derivedPaths: [String: String] = [:]  // job key -> path
        var derivedIndex: [String: Int] = [:]  // path -> index in plan.derived
        var taken = input.takenPaths
        var keptAsWritten = Set<String>()
        var replaced = Set<String>()
        for (index, (file, rule)) in rules.enumerated() {
            guard let conversion = conversions[index] else {
                keptAsWritten.formUnion(rule.files)
                continue
            }
            if let failed = conversion.subsets.compactMap({ $0.job.flatMap { outputs[$0]?.failure } }).first {
                unconverted(rule, in: file, problems: [(conversion.file, failed)], input, &plan)
                keptAsWritten.formUnion(rule.files)
                continue
            }
            var subsets: [PackedFontFace.Subset] = []
            let essentialRule = input.essential.contains(file)
            for subset in conversion.subsets {
                var path = conversion.file  // WOFF2 already, packed as it is
                if let key = subset.job, case .success(let bytes) = outputs[key]! {
                    if let known = derivedPaths[key] {
                        path = known
                    } else {
                        path = derivedPath(for: conversion.file, subset: subset.ranges == nil ? nil : subset.name, taken: &taken)
                        derivedPaths[key] = path
                        derivedIndex[path] = plan.derived.count
                        plan.derived.append(.init(path: path, bytes: bytes, digest: SHA256Hasher.hash(bytes), essential: false))
                    }
                }
                let essential = essentialRule && (subset.ranges.map { $0.intersects(essentialRanges) } ?? true)
                let digest: Digest
                let size: Int64
                if let at = derivedIndex[path] {
                    if essential { plan.derived[at].essential = true }
                    digest = plan.derived[at].digest
                    size = Int64(plan.derived[at].bytes.count)
                } else {
                    digest = input.digests[path]!
                    size = input.files[path]!.size
                }
                subsets.append(.init(name: subset.name, ranges: subset.written, path: path, digest: digest, bytes: size, essential: essential))
            }
            var rewrite = plan.rewrites[file] ?? FontRewrite()
            rewrite.rules[rule.range.lowerBound] = replacement(rule, source: conversion.file, sourceBytes: input.files[conversion.file]!.size, subsets: subsets)
            let primary = subsets[min(conversion.primary, subsets.count - 1)].digest
            for source in rule.files where rewrite.preloads[source] == nil { rewrite.preloads[source] = primary }
            plan.rewrites[file] = rewrite
            plan.links[file, default: []].append(contentsOf: subsets.map(\.path))
            replaced.formUnion(rule.files.filter { $0 != conversion.file || conversion.subsets.first?.job != nil })
            plan.report.faces.append(
                PackedFontFace(
                    location: rule.location, family: rule.family, weight: rule.weight, style: rule.style,
                    outcome: conversion.subsets.first?.job == nil ? .woff2 : .converted, source: conversion.file,
                    sourceBytes: input.files[conversion.file]!.size,
                    dropped: Array(Set(rule.files).subtracting([conversion.file])).sorted(), subsets: subsets, kept: conversion.kept))
        }
        // Preloads of a face, whatever source they named, load its first subset.
        var preloads: [String: Digest] = [:]
        for file in plan.rewrites.keys.sorted() { preloads.merge(plan.rewrites[file]!.preloads) { first, _ in first } }
        for text in input.texts where plan.rewrites[text.path] == nil && text.analysis.fontTargets.contains(where: { preloads[$0] != nil }) {
            plan.rewrites[text.path] = FontRewrite(rules: [:], preloads: preloads)
        }
        for file in plan.rewrites.keys { plan.rewrites[file]!.preloads.merge(preloads) { mine, _ in mine } }
        let woff2Kept = Set(plan.report.faces.filter { $0.outcome == .woff2 }.map(\.source))
        plan.dropped = replaced.subtracting(keptAsWritten).subtracting(input.otherUses).subtracting(woff2Kept)
        plan.derived.sort { BundlePath.precedes($0.path, $1.path) }
        let statistics = input.cache.current
        plan.report.cacheHits = statistics.hits
        plan.report.conversions = statistics.misses
        plan.report.rejectedCacheEntries = statistics.rejected
        plan.report.verifiedCacheEntries = statistics.verified
        for problem in statistics.problems {
            plan.warnings.append(PackWarning(.fontCache, problem, path: input.cache.folder))
        }
        return plan
    }

    // MARK: Steps

    private static func probe(_ path: String, _ input: Input) throws(FontProblem) -> Probe {
        let file = input.files[path]!
        guard file.size > 0 else { throw FontProblem("an empty file") }
        guard file.size <= conversionLimit else {
            throw FontProblem("\(file.size) bytes, over the \(conversionLimit >> 20) MiB the packer converts")
        }
        let head: [UInt8]
        do throws(FormatError) {
            let handle = try ReadableFile(path: file.location)
            var buffer = [UInt8](repeating: 0, count: 8)
            let count = try FormatError.typed { try buffer.withUnsafeMutableBytes { try handle.read(into: $0) } }
            head = Array(buffer[0..<count])
        } catch {
            throw FontProblem("cannot read it: \(error.message)")
        }
        let container = FontTools.Container(magic: head)
        guard container != .other else {
            if head.starts(with: Array("ttcf".utf8)) { throw FontProblem("a TrueType collection: CSS cannot choose one of its faces") }
            if head.first == UInt8(ascii: "<") { throw FontProblem("not a font: it starts like HTML, XML or SVG") }
            throw FontProblem("not a TrueType, OpenType, WOFF or WOFF2 font")
        }
        // What a WOFF or WOFF2 decodes to is read from its headers on every pack, whatever the
        // font cache holds: a character map stored by a version without the limit lifts nothing.
        if container == .woff || container == .woff2 { try FontTools.requireDecodedSize(of: try read(file), atMost: Int(conversionLimit)) }
        // The character map is the source's: an unsigned entry is one only when the source says so.
        var computed: [UInt8]?
        func characters() throws(FontProblem) -> [UInt8] {
            if let computed { return computed }
            let sfnt = try FontTools.sfnt(of: try read(file), limit: Int(conversionLimit))
            let text = Array(try FontTools.characters(of: sfnt).description.utf8)
            computed = text
            return text
        }
        let key = "input \(input.digests[path]!)\noperation characters\n\(FontTools.conversionDependencies)"
        let stored = try input.cache.value(for: key, verify: { stored throws(FontProblem) in try characters() == stored }, make: characters)
        guard let characters = UnicodeRanges(css: String(decoding: stored, as: UTF8.self)) else {
            throw FontProblem("its character map is empty")
        }
        return Probe(container: container, characters: characters)
    }

    private static func convert(_ job: Job, _ input: Input) throws(FontProblem) -> [UInt8] {
        // The sfnt the WOFF2 encodes: made only for a conversion, or to check an unsigned entry.
        var made: [UInt8]?
        func sfnt() throws(FontProblem) -> [UInt8] {
            if let made { return made }
            var sfnt = try FontTools.sfnt(of: try read(input.files[job.file]!), limit: Int(conversionLimit))
            if let ranges = job.ranges { sfnt = try FontTools.subset(sfnt, to: ranges, features: job.features) }
            made = sfnt
            return sfnt
        }
        return try input.cache.value(
            for: job.key,
            verify: { stored throws(FontProblem) in
                let expected = try sfnt()
                do { try FontTools.verifyWOFF2(stored, encodes: expected) } catch { return false }
                return true
            },
            make: { () throws(FontProblem) in try FontTools.woff2(try sfnt(), quality: input.settings.quality) })
    }

    private static func read(_ file: SourceFile) throws(FontProblem) -> [UInt8] {
        do throws(FormatError) { return try ReadableFile(path: file.location).readAll(limit: Int(conversionLimit)) } catch {
            throw FontProblem("cannot read it: \(error.message)")
        }
    }

    /// `fonts/Lato-Regular.latin.woff2` for `fonts/Lato-Regular.ttf` (no subset name: the whole
    /// face); `fonts/Lato-Regular.ttf.latin.woff2`, then numbered, when that is taken.
    private static func derivedPath(for source: String, subset: String?, taken: inout Set<String>) -> String {
        let suffix = (subset.map { "." + $0 } ?? "") + ".woff2"
        let slash = source.lastIndex(of: "/").map { source.index(after: $0) } ?? source.startIndex
        let name = source[slash...]
        let stem = name.lastIndex(of: ".").map { source[..<$0] } ?? source[...]
        var path = String(stem) + suffix
        if taken.contains(path) { path = source + suffix }
        var number = 2
        while taken.contains(path) {
            path = source + (subset.map { "." + $0 } ?? "") + "-\(number).woff2"
            number += 1
        }
        taken.insert(path)
        return path
    }

    /// The rule once per subset, each with one `src` (its `local()` items, then the packed
    /// file as WOFF2) and, for subsets, its `unicode-range`; a comment before them,
    /// `/* larder-font: <source bytes> <subset names> <source path> */`, is what `larder
    /// inspect` reads back.
    private static func replacement(_ rule: FontFaceRule, source: String, sourceBytes: Int64, subsets: [PackedFontFace.Subset]) -> [UInt8] {
        let shownSource = source.replacingOccurrences(of: "*/", with: "*_/")
        let names = subsets.map { $0.name.replacingOccurrences(of: " ", with: "_") }.joined(separator: ",")
        var out = Array("/* larder-font: \(sourceBytes) \(names) \(shownSource) */\n".utf8)
        for (index, subset) in subsets.enumerated() {
            var text = rule.text
            let url = "url(\"\(FontURL(digest: subset.digest))\") format(\"woff2\")"
            let source = Array((" " + (rule.localSources + [url]).joined(separator: ", ")).utf8)
            // The last `src` declaration (the one that counts) gets the packed source; earlier
            // ones go.
            let base = rule.range.lowerBound
            for (index, value) in rule.sourceValues.enumerated().reversed() {
                if index == rule.sourceValues.count - 1 {
                    text.replaceSubrange((value.lowerBound - base)..<(value.upperBound - base), with: source)
                } else {
                    let whole = rule.sourceDeclarations[index]
                    var end = whole.upperBound - base
                    while end < text.count, text[end] == 0x20 || text[end] == 0x09 || text[end] == 0x0A || text[end] == 0x0D { end += 1 }
                    text.removeSubrange((whole.lowerBound - base)..<end)
                }
            }
            if let ranges = subset.ranges, let close = text.lastIndex(of: UInt8(ascii: "}")) {
                var before = close
                while before > 0, isASCIIWhitespaceByte(text[before - 1]) { before -= 1 }
                let separator = before > 0 && text[before - 1] != UInt8(ascii: ";") && text[before - 1] != UInt8(ascii: "{") ? ";" : ""
                text.insert(contentsOf: Array("\(separator)\n  unicode-range: \(ranges);".utf8), at: before)
            }
            if index > 0 { out.append(0x0A) }
            out += text
        }
        return out
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
