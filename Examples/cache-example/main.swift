// Installs a bundle archive that `larder pack` wrote into a cache, leases the bundle, reads its
// entry document and resolves one of its fonts through its `larder-font://` URL, as a renderer
// does.
//
//   cache-example <archive> <cache folder>
import Foundation
import LarderCache
import LarderFormat

func run(archive: String, cacheFolder: String) throws {
    // `larder pack` names an archive by its bundle digest (<hex>.tar.gz); the install checks
    // that the manifest hashes to it, as an app checks what its origin announced.
    let hex = URL(fileURLWithPath: archive).lastPathComponent.replacingOccurrences(of: ".tar.gz", with: "")
    let expected = try Digest(parsing: "sha256:" + hex)

    let cache = try LarderCache(at: cacheFolder, configuration: .init(diskBudget: 200_000_000))
    let installed = try cache.install(archiveAt: archive, expected: expected)
    print("installed \(installed.name) \(installed.bundle)")
    print("  \(installed.alreadyPresent ? "already present" : "\(installed.objectsWritten) objects, \(installed.bytesWritten) bytes written")")

    // While the lease is held, no eviction or removal takes the bundle away.
    let lease = try cache.lease(installed.bundle)
    defer { lease.release() }
    let entry = lease.manifest.entry
    let html = try lease.data(at: entry)
    print("read \(entry): \(html.count) bytes, verified against \(lease.manifest.file(at: entry)!.digest)")

    // The packer rewrote every font reference to larder-font://sha256/<hex>; the cache
    // resolves such a URL to the font's verified bytes.
    guard let font = lease.manifest.files.first(where: { $0.role == .font }) else {
        print("the bundle has no font")
        return
    }
    let url = FontURL(digest: font.digest)
    let resolved = try cache.resolveFont(url)
    print("resolved \(url)")
    print("  \(font.path): \(resolved.mediaType), \(resolved.bytes.count) bytes")
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: cache-example <archive> <cache folder>\n".utf8))
    exit(64)
}
do {
    try run(archive: arguments[1], cacheFolder: arguments[2])
} catch {
    FileHandle.standardError.write(Data("cache-example: \(error)\n".utf8))
    exit(1)
}
