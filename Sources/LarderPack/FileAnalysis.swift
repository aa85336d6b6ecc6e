import LarderFormat
import LarderSystem
#if canImport(Glibc)
import Glibc
#endif

/// A replacement of bytes in a source file, made when packing.
struct Edit: Sendable, Equatable {
    var range: Range<Int>
    var replacement: [UInt8]
}

/// A reference with its target resolved and its place in the source known.
struct ResolvedReference: Sendable {
    var url: String
    var kind: Reference.Kind
    var target: ReferenceTarget
    var location: SourceLocation
}

/// A file of the bundle that another refers to, once per target.
struct Link: Sendable, Equatable {
    var target: String
    /// Some reference to it loads it (is not a navigation link).
    var loads: Bool
}

/// What one source file contributes to the bundle: its packed digest and size, the font
/// rewrites to apply, and what it refers to, kept compact (a documentation set makes
/// millions of references, mostly the same few links on every page).
struct FileAnalysis: Sendable {
    var digest: Digest
    var size: Int64
    var edits: [Edit]
    /// The bundle's files it refers to, each once, in the order first met.
    var links: [Link] = []
    /// The bundle's files it uses as fonts (`@font-face` sources, font preloads).
    var fontTargets: [String] = []
    /// References to report or refuse: to files the bundle lacks, climbing out of it, and
    /// remote URLs it loads (remote navigation links are dropped).
    var flagged: [ResolvedReference] = []
    /// The file's identity on disk when analysed, to catch changes before it is archived; nil
    /// for a file the packer made (a converted font).
    var stamp: FileStamp?
    /// Its `@font-face` rules, with the bundle files their `url()` sources name.
    var fontFaces: [FontFaceRule] = []
    /// The bundle files it refers to other than as a font source or preload.
    var nonFontUses: [String] = []
    /// The characters its text shows (only collected when some face is split into subsets).
    var characters: TextCharacters?
    /// The layout features its CSS asks for (collected with ``characters``).
    var fontFeatures: Set<String> = []
}

/// How a second analysis rewrites a file's fonts once they are converted: each converted
/// `@font-face` rule (by its first byte) replaced whole, and font preloads pointed at the
/// converted file that holds the face's first subset.
struct FontRewrite: Sendable {
    var rules: [Int: [UInt8]] = [:]
    var preloads: [String: Digest] = [:]
}

/// Size, modification time and inode of a file, compared before archiving it.
struct FileStamp: Sendable, Equatable {
    var size: Int64
    var modified: Int64
    var modifiedNanoseconds: Int64
    var inode: UInt64

    init(fileDescriptor: Int32) throws(FormatError) {
        var info = stat()
        guard fstat(fileDescriptor, &info) == 0 else { throw FormatError(.io, "fstat failed: \(Errno.current)") }
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
        inode = UInt64(info.st_ino)
    }
}

extension FileAnalysis {
    /// Reads, hashes and (for HTML and CSS) scans one file, rewriting its font references to
    /// the `larder-font:` scheme: every `@font-face` source and `<link rel="preload"
    /// as="font">` href, whatever the target's format, and any other HTML attribute that
    /// names a font file. The whole URL is replaced, query and fragment included (they never
    /// change which file it names, and the scheme's URLs have neither).
    /// - Parameters:
    ///   - digests: digests of the bundle's files that are neither HTML nor CSS.
    ///   - fonts: the bundle paths known to be fonts (by extension, or used as a font source).
    ///   - collectCharacters: also collect the characters of its text (``TextCharacters``).
    ///   - fontRewrite: the converted rules and preloads, in a second analysis.
    static func analyse(
        _ file: SourceFile, role: FileRole, knownPaths: Set<String>, digests: [String: Digest] = [:], fonts: Set<String> = [],
        collectCharacters: Bool = false, fontRewrite: FontRewrite? = nil
    ) throws(PackError) -> FileAnalysis {
        do {
            let handle = try ReadableFile(path: file.location)
            let stamp = try FileStamp(fileDescriptor: handle.descriptor)
            guard role == .document || role == .style else {
                let hasher = SHA256Hasher()
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
                defer { buffer.deallocate() }
                var size: Int64 = 0
                while true {
                    let count = try handle.read(into: buffer)
                    if count == 0 { break }
                    hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    size += Int64(count)
                }
                return FileAnalysis(digest: hasher.finalize(), size: size, edits: [], stamp: stamp)
            }
            let content = try handle.readAll()
            var edits: [Edit] = []
            var links: [Link] = []
            var linkIndex: [String: Int] = [:]
            var fontTargets: [String] = []
            var flagged: [ResolvedReference] = []
            var fontFaces: [FontFaceRule] = []
            var nonFontUses: [String] = []
            var characters: TextCharacters?
            var fontFeatures: Set<String> = []
            content.withUnsafeBufferPointer { bytes in
                let (found, ruleRanges) = role == .document ? HTMLScanner.scanWithFontFaces(bytes) : CSSScanner.scanWithFontFaces(bytes)
                var ruleLines = LineCounter(bytes)
                fontFaces = ruleRanges.map { range in
                    var rule = FontFaceRule(bytes: bytes, range: range)
                    let (line, column) = ruleLines.location(of: range.lowerBound)
                    rule.location = SourceLocation(file: file.path, line: line, column: column)
                    return rule
                }
                if collectCharacters {
                    characters = TextCharacters.scan(bytes, isDocument: role == .document, path: file.path)
                    fontFeatures = FontFeatures.asked(in: bytes)
                }
                let replaced = fontRewrite.map { rewrite in ruleRanges.filter { rewrite.rules[$0.lowerBound] != nil } } ?? []
                var lines = LineCounter(bytes)
                func flag(_ reference: Reference, _ target: ReferenceTarget) {
                    let (line, column) = lines.location(of: reference.offset)  // offsets come in increasing order
                    flagged.append(
                        ResolvedReference(
                            url: reference.url, kind: reference.kind, target: target,
                            location: SourceLocation(file: file.path, line: line, column: column)))
                }
                for reference in found {
                    let target = ReferenceResolver.resolve(reference.url, from: file.path)
                    let isFontUse = reference.kind == .fontSource || reference.kind == .fontPreload
                    switch target {
                    case .local(let path) where knownPaths.contains(path):
                        if let index = linkIndex[path] {
                            if reference.kind.loads { links[index].loads = true }
                        } else {
                            linkIndex[path] = links.count
                            links.append(Link(target: path, loads: reference.kind.loads))
                        }
                        if isFontUse { fontTargets.append(path) } else { nonFontUses.append(path) }
                        if reference.kind == .fontSource, let index = fontFaces.firstIndex(where: { $0.range.contains(reference.offset) }) {
                            fontFaces[index].files.append(path)
                        }
                    case .local, .escaping, .malformed:
                        flag(reference, target)
                    case .remote where reference.kind != .navigation:  // a connection hint included: the engine would connect
                        flag(reference, target)
                    case .remote, .ignored:
                        break
                    }
                    guard let range = reference.replaceRange, case .local(let path) = target, knownPaths.contains(path),
                        var digest = digests[path], isFontUse || fonts.contains(path),
                        !replaced.contains(where: { $0.contains(reference.offset) })
                    else { continue }
                    if reference.kind == .fontPreload, let converted = fontRewrite?.preloads[path] { digest = converted }
                    // A preload (or any other HTML reference) names the same URL as the
                    // @font-face source, or the engine fetches the font twice (by path, then
                    // by digest).
                    let url = FontURL(digest: digest).description
                    edits.append(Edit(range: range, replacement: Array((reference.kind == .fontSource ? "url(\"\(url)\")" : url).utf8)))
                }
            }
            if let fontRewrite {
                for (start, replacement) in fontRewrite.rules {
                    guard let rule = fontFaces.first(where: { $0.range.lowerBound == start }) else { continue }
                    edits.append(Edit(range: rule.range, replacement: replacement))
                }
                edits.sort { $0.range.lowerBound < $1.range.lowerBound }
            }
            let packed = apply(edits, to: content)
            return FileAnalysis(
                digest: SHA256Hasher.hash(packed), size: Int64(packed.count), edits: edits, links: links, fontTargets: fontTargets,
                flagged: flagged, stamp: stamp, fontFaces: fontFaces, nonFontUses: nonFontUses, characters: characters,
                fontFeatures: fontFeatures)
        } catch {
            throw PackError(.unreadableFile, error.message, path: file.path, cause: error)
        }
    }

    /// The file's bytes with the edits applied; edits must not overlap and be in order.
    static func apply(_ edits: [Edit], to content: [UInt8]) -> [UInt8] {
        guard !edits.isEmpty else { return content }
        var out: [UInt8] = []
        out.reserveCapacity(content.count + edits.count * 80)
        var position = 0
        for edit in edits {
            out.append(contentsOf: content[position..<edit.range.lowerBound])
            out.append(contentsOf: edit.replacement)
            position = edit.range.upperBound
        }
        out.append(contentsOf: content[position...])
        return out
    }
}
