import LarderFormat
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
    /// Whether the packer can rewrite it in place (it has a replace range).
    var rewritable: Bool
}

/// What one source file contributes to the bundle: its packed digest and size, the font
/// rewrites to apply, and the references it makes.
struct FileAnalysis: Sendable {
    var digest: Digest
    var size: Int64
    var edits: [Edit]
    var references: [ResolvedReference]
    /// The file's identity on disk when analysed, to catch changes before it is archived.
    var stamp: FileStamp
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
    static let font = "larder-font://sha256/"

    /// Reads, hashes and (for HTML and CSS) scans one file, rewriting its font references to
    /// the `larder-font:` scheme: every `@font-face` source and `<link rel="preload"
    /// as="font">` href, whatever the target's format, and any other HTML attribute that
    /// names a font file. The whole URL is replaced, query and fragment included (they never
    /// change which file it names, and the scheme's URLs have neither).
    /// - Parameters:
    ///   - digests: digests of the bundle's files that are neither HTML nor CSS.
    ///   - fonts: the bundle paths known to be fonts (by extension, or used as a font source).
    static func analyse(
        _ file: SourceFile, role: FileRole, knownPaths: Set<String>, digests: [String: Digest] = [:], fonts: Set<String> = []
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
                return FileAnalysis(digest: hasher.finalize(), size: size, edits: [], references: [], stamp: stamp)
            }
            let content = try handle.readAll()
            var references: [ResolvedReference] = []
            var edits: [Edit] = []
            content.withUnsafeBufferPointer { bytes in
                let found = role == .document ? HTMLScanner.scan(bytes) : CSSScanner.scan(bytes)
                var lines = LineCounter(bytes)
                for reference in found {
                    let (line, column) = lines.location(of: reference.offset)
                    let target = ReferenceResolver.resolve(reference.url, from: file.path)
                    references.append(
                        ResolvedReference(
                            url: reference.url, kind: reference.kind, target: target,
                            location: SourceLocation(file: file.path, line: line, column: column),
                            rewritable: reference.replaceRange != nil))
                    let isFontUse = reference.kind == .fontSource || reference.kind == .fontPreload
                    guard let range = reference.replaceRange, case .local(let path) = target, knownPaths.contains(path),
                        let digest = digests[path], isFontUse || fonts.contains(path)
                    else { continue }
                    // A preload (or any other HTML reference) names the same URL as the
                    // @font-face source, or the engine fetches the font twice (by path, then
                    // by digest).
                    let url = font + digest.hex
                    edits.append(Edit(range: range, replacement: Array((reference.kind == .fontSource ? "url(\"\(url)\")" : url).utf8)))
                }
            }
            let packed = apply(edits, to: content)
            return FileAnalysis(
                digest: SHA256Hasher.hash(packed), size: Int64(packed.count), edits: edits, references: references,
                stamp: stamp)
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
