import Foundation
import LarderFormat
import LarderToolSupport

/// Where seed inputs come from: the sample flows (`SampleBundles/`, read from the current
/// folder, the repository root), the web content `Tools/setup.sh` installs for the real-world
/// tests (``RealWorldSource``), and hand-written edge cases per format
/// (the two extensions beside this file). Everything is made when `larder-fuzz seeds` runs; nothing
/// big is committed.
enum SeedSources {
    /// The most files taken from one real-world package for one corpus, spread over it.
    static let filesPerSource = 40

    /// The sample flow folders.
    static func sampleFolders() throws -> [String] {
        let root = FileManager.default.currentDirectoryPath + "/SampleBundles"
        let names = try FileManager.default.contentsOfDirectory(atPath: root).sorted()
        let folders = names.map { root + "/" + $0 }.filter { isFolder($0) }
        guard !folders.isEmpty else { throw SeedError("no sample flows in \(root): run larder-fuzz from the repository root") }
        return folders
    }

    /// The installed real-world content, one folder per package.
    static func realWorldFolders() throws -> [String] {
        try RealWorldSource.allCases.map { source in
            guard isFolder(source.installedPath) else {
                throw SeedError("\(source.installedPath) is missing: install \(source.package) (bash Tools/setup.sh)")
            }
            return source.installedPath
        }
    }

    /// The regular files under `folder` (links followed), relative, sorted.
    static func files(in folder: String) -> [String] {
        var result: [String] = []
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        while let relative = enumerator.nextObject() as? String {
            let path = folder + "/" + relative
            if !isFolder(path), FileManager.default.isReadableFile(atPath: path) { result.append(relative) }
        }
        return result.sorted { BundlePath.precedes($0, $1) }
    }

    /// `count` items spread evenly over `items`, first and last included.
    static func spread<T>(_ items: [T], count: Int) -> [T] {
        guard items.count > count, count > 1 else { return items }
        return (0..<count).map { items[$0 * (items.count - 1) / (count - 1)] }
    }

    static func isFolder(_ path: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
    }

    /// A file's bytes (through ``ReadableFile``: Foundation's `FileManager.contents(atPath:)`
    /// leaks a 4 KiB buffer for each empty file, which LeakSanitizer reports).
    static func read(_ path: String) throws -> [UInt8] {
        try ReadableFile(path: path).readAll()
    }

    /// Every file with one of `extensions` in the samples, and a spread of them from each
    /// real-world package.
    static func webFiles(extensions: Set<String>) throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for folder in try sampleFolders() {
            for file in files(in: folder) where extensions.contains(MediaType.fileExtension(of: file)) {
                seeds.append(try read(folder + "/" + file))
            }
        }
        for folder in try realWorldFolders() {
            let matching = files(in: folder).filter { extensions.contains(MediaType.fileExtension(of: $0)) }
            for file in spread(matching, count: filesPerSource) { seeds.append(try read(folder + "/" + file)) }
        }
        return seeds
    }

    /// The files of a folder as a bundle would hold them: text whole up to `textLimit`, other
    /// files cut to `binaryLimit` bytes (their digest is taken of what is kept).
    static func bundleFiles(in folder: String, limit count: Int, textLimit: Int, binaryLimit: Int) throws -> [(String, [UInt8])] {
        var result: [(String, [UInt8])] = []
        let all = files(in: folder).filter { $0 != "larder.json" }
        for file in spread(all, count: count) {
            let bytes = try read(folder + "/" + file)
            let role = MediaType.classify(file).role
            let isText = role == .document || role == .style || role == .script
            result.append((file, Array(bytes.prefix(isText ? textLimit : binaryLimit))))
        }
        return result
    }

    /// A manifest for `files`, its entry the first document (one is added when there is none).
    static func manifest(name: String, files: [(String, [UInt8])], capabilities: Set<Manifest.Capability> = [.prepare, .visibility]) throws
        -> Manifest
    {
        var listed = files.map { path, bytes in
            Manifest.File(
                path: path, digest: SHA256Hasher.hash(bytes), size: Int64(bytes.count), mediaType: MediaType.classify(path).mediaType,
                role: MediaType.classify(path).role, essential: MediaType.classify(path).role != .image)
        }
        if !listed.contains(where: { $0.role == .document }) {
            let page = Array("<!doctype html><p>entry</p>".utf8)
            listed.append(.init(path: "index.html", digest: SHA256Hasher.hash(page), size: Int64(page.count), mediaType: "text/html", role: .document, essential: true))
        }
        let entry = listed.filter { $0.role == .document }.map(\.path).sorted { BundlePath.precedes($0, $1) }.first!
        return try Manifest(name: name, entry: entry, renderer: .init(protocolVersion: 1, capabilities: capabilities), files: listed)
    }

    /// The samples' and each real-world package's files (cut as ``bundleFiles(in:limit:textLimit:binaryLimit:)``
    /// does), by folder name.
    static func bundles(limit count: Int, textLimit: Int, binaryLimit: Int) throws -> [(String, [(String, [UInt8])])] {
        try (sampleFolders() + realWorldFolders()).map { folder in
            (URL(fileURLWithPath: folder).lastPathComponent, try bundleFiles(in: folder, limit: count, textLimit: textLimit, binaryLimit: binaryLimit))
        }
    }
}

/// A seed corpus that cannot be made.
struct SeedError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Writes a target's seeds into a folder, each named by its SHA-256 (as libFuzzer names
/// corpus files by theirs), so writing them again changes nothing.
enum SeedWriter {
    static func write(_ target: FuzzTarget, into folder: String) throws -> Int {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var written = Set<Digest>()
        for seed in try target.seeds() {
            let bytes = Array(seed.prefix(target.maximumLength))
            let digest = SHA256Hasher.hash(bytes)
            guard written.insert(digest).inserted else { continue }
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/seed-" + digest.hex.prefix(40)))
        }
        return written.count
    }
}
