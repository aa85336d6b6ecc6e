import Foundation
import LarderFormat

/// How to pack.
public struct PackOptions: Sendable {
    /// gzip level, 1 to 9.
    public var level: Int = 6
    /// Remote references a page loads are errors.
    public var strict: Bool = false
    /// The mtime written for every archive entry (0, or SOURCE_DATE_EPOCH).
    public var modificationTime: Int64 = 0
    /// Compression threads.
    public var concurrency: Int = Processors.active
    /// What the archive must stay within: what every reader accepts (for tests: smaller ones).
    package var limits: ArchiveReader.Limits = .default
    /// Where converted fonts are kept between packs (`--font-cache`).
    public var fontCache: FontCacheLocation = .standard
    /// Called on the packing thread as the archive is written (``PackProgress``); nil, the
    /// default, reports nothing. It does not change what is packed.
    public var progress: (@Sendable (PackProgress) -> Void)?

    public init(level: Int = 6, strict: Bool = false, modificationTime: Int64 = 0) {
        self.level = level
        self.strict = strict
        self.modificationTime = modificationTime
    }
}

/// What ``Packer/pack(source:into:options:)`` built.
public struct PackReport: Sendable {
    public var name: String
    public var bundleDigest: Digest
    public var archiveDigest: Digest
    public var archivePath: String
    public var fileCount: Int
    public var essentialCount: Int
    /// The files' bytes, uncompressed.
    public var totalSize: Int64
    public var archiveSize: Int64
    public var rewrittenFontReferences: Int
    public var unreferenced: [String]
    public var remoteReferences: [RemoteReference]
    /// Junk left out of the bundle.
    public var skipped: [String]
    /// What `exclude` patterns left out (a folder stands for its content).
    public var excluded: [String]
    /// Everything noticed that did not stop the pack, grouped by kind.
    public var warnings: [PackWarning]
    /// Each font face: its source, what was packed, its subsets.
    public var fonts = FontPackReport()
}

/// Packs a source folder into `<bundle-digest-hex>.tar.gz`: the canonical manifest first, then
/// every file in path order, with font sources rewritten; written under a temporary name and
/// moved into place only when complete, so a failure leaves no partial file behind.
public enum Packer {
    /// Packs `source` into `outputFolder`; an output folder inside the source is never packed.
    /// - Throws: ``PackFailure``; ``PackError/Code/outputFailed`` when the output folder is
    ///   the source folder itself.
    public static func pack(source: String, into outputFolder: String, options: PackOptions = .init()) throws(PackFailure) -> PackReport {
        let output = SourceTree.bundlePath(of: outputFolder, inside: source)
        guard output != "" else {
            throw PackFailure([
                PackError(
                    .outputFailed, "the output folder is the source folder, whose archives would be packed: write them to another folder",
                    path: outputFolder)
            ])
        }
        let plan = try BundlePlan.analyse(source: source, strict: options.strict, output: output, fontCache: options.fontCache)
        return try write(plan, into: outputFolder, options: options)
    }

    /// Writes an analysed plan as an archive.
    public static func write(_ plan: BundlePlan, into outputFolder: String, options: PackOptions = .init()) throws(PackFailure) -> PackReport {
        func failure(_ error: FormatError) -> PackFailure {
            PackFailure([PackError(.outputFailed, error.message, path: error.entry ?? error.path ?? outputFolder, cause: error)])
        }
        let verified = VerifiedManifest(plan.manifest)
        let manifest = verified.manifest
        try admit(verified, limits: options.limits)
        try createOutputFolder(outputFolder)
        let bundleDigest = verified.digest
        let destination = outputFolder + "/" + bundleDigest.hex + ".tar.gz"
        let archiveHasher = SHA256Hasher()
        let output: AtomicFileWriter
        do { output = try AtomicFileWriter(folder: outputFolder, prefix: bundleDigest.hex) } catch { throw failure(error) }
        let gzip = GzipMemberWriter(level: options.level, concurrency: options.concurrency, admitting: options.limits) {
            (bytes) throws(FormatError) in
            archiveHasher.update(bytes)
            try output.write(bytes)
        }
        var starts: [(offset: UInt64, path: String)] = []
        let totalBytes = plan.tree.files.reduce(Int64(0)) { total, file in
            total + (plan.generatedFiles[file.path].map { Int64($0.count) } ?? plan.analyses[file.path]!.size)
        }
        var bytesDone: Int64 = 0
        func advance(_ count: Int) {
            guard let progress = options.progress else { return }
            bytesDone += Int64(count)
            progress(PackProgress(bytes: bytesDone, totalBytes: totalBytes))
        }
        do throws(FormatError) {
            let tar = try TarWriter(modificationTime: options.modificationTime) { (bytes) throws(FormatError) in try gzip.write(bytes) }
            try tar.addFile(path: Manifest.entryName, bytes: verified.bytes)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
            defer { buffer.deallocate() }
            for file in plan.tree.files {
                starts.append((gzip.bytesIn, file.path))
                gzip.inputIsPrecompressed = MediaType.isPrecompressed(file.path)
                if let bytes = plan.generatedFiles[file.path] {
                    try tar.addFile(path: file.path, bytes: bytes)
                    advance(bytes.count)
                    continue
                }
                try archive(file, analysis: plan.analyses[file.path]!, into: tar, buffer: buffer, advance: advance)
            }
            gzip.inputIsPrecompressed = false
            try tar.finish()
            try gzip.finish()
            try output.commit(to: destination)
            return PackReport(
                name: manifest.name, bundleDigest: bundleDigest, archiveDigest: archiveHasher.finalize(),
                archivePath: destination, fileCount: manifest.files.count,
                essentialCount: manifest.files.filter(\.essential).count, totalSize: manifest.totalSize,
                archiveSize: Int64(gzip.bytesOut), rewrittenFontReferences: plan.rewrittenFontReferences,
                unreferenced: plan.unreferenced, remoteReferences: plan.remoteReferences, skipped: plan.tree.skipped,
                excluded: plan.tree.excluded, warnings: plan.warnings, fonts: plan.fonts)
        } catch where error.code == .limitExceeded && gzip.refusedInput != nil {
            throw ratioFailure(error, input: gzip.refusedInput!, starts: starts, end: gzip.bytesIn)
        } catch {
            throw failure(error)
        }
    }

    private static func archive(
        _ file: SourceFile, analysis: FileAnalysis, into tar: TarWriter, buffer: UnsafeMutableRawBufferPointer,
        advance: (Int) -> Void
    ) throws(FormatError) {
        let handle = try ReadableFile(path: file.location)
        guard try FileStamp(fileDescriptor: handle.descriptor) == analysis.stamp else {
            throw FormatError(.io, "file changed while it was being packed; run pack again", entry: file.path)
        }
        if !analysis.edits.isEmpty {
            let packed = FileAnalysis.apply(analysis.edits, to: try handle.readAll())
            try tar.addFile(path: file.path, bytes: packed)
            advance(Int(analysis.size))
            return
        }
        try tar.addFile(path: file.path, size: analysis.size) { (write) throws(FormatError) in
            while true {
                let count = try handle.read(into: buffer)
                if count == 0 { break }
                try write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                advance(count)
            }
        }
    }
}
