import CArchive
import Foundation
import LarderCache
import LarderFormat

/// Archive install end to end: an archive built from libFuzzer's recipe (``InstallRecipe``), or
/// taken as it is, into a real cache in a sandbox folder. It is refused with a typed error and
/// the cache folder left as it was, or it installs and then reads back and verifies, and
/// emptying the cache leaves its folder as it was before; nothing is ever written outside the
/// cache folder.
enum InstallTarget {
    static let target = FuzzTarget(
        name: "install",
        summary: "LarderCache.install of a hostile archive: refused and unchanged, or installed and verifying; nothing outside",
        maximumLength: 1 << 15,
        run: { bytes in check(InstallRecipe(bytes)) },
        seeds: { try SeedSources.installRecipes() })

    static func check(_ recipe: InstallRecipe) {
        let archive: [UInt8]
        do { archive = try recipe.archive() } catch {
            require(false, "the recipe's archive cannot be written: \(error)")
            return
        }
        let sandbox = InstallSandbox.shared
        sandbox.refreshCacheFolder()
        let before = sandbox.cacheFolder.folders
        let census = ArchiveCensus(archive)
        // Absolute paths an archive names must stay as they were.
        let absolute = (census?.entries ?? []).map { String(decoding: $0.path, as: UTF8.self) }.filter { $0.hasPrefix("/") }
        let absentBefore = absolute.filter { !FileManager.exists($0) }
        let expected = recipe.fault == .unexpectedDigest ? SHA256Hasher.hash(Array("another bundle".utf8)) : nil
        let source = ChunkedSource(archive)
        do throws(CacheError) {
            let result = try sandbox.cache.install(expected: expected, from: source.read)
            checkInstalled(result, census: census, cache: sandbox.cache)
            Outcomes.record("installed")
            sandbox.empty(back: before)
        } catch {
            let codes: Set<CacheError.Code> = [.invalidBundle, .bundleDigestMismatch]
            require(codes.contains(error.code), "install refused with code \(error.code): \(error)")
            if error.code == .invalidBundle { require(error.cause != nil, "a refusal without its format error: \(error)") }
            Outcomes.record("refused \(error.code) \(error.cause.map { "\($0.code)" } ?? "")")
            sandbox.refreshCacheFolder()
            let after = sandbox.cacheFolder.folders
            require(
                after == before,
                "a refused install changed the cache folder: \(FolderListing.difference(WatchedFolder.flattened(before), WatchedFolder.flattened(after)))")
            do {
                let bundles = try sandbox.cache.bundles()
                require(bundles.isEmpty, "a refused install left \(bundles.count) bundles")
            } catch {
                require(false, "the cache cannot list its bundles after a refusal: \(error)")
            }
        }
        sandbox.checkOutside()
        for path in absentBefore { require(!FileManager.exists(path), "the install created \(path)") }
    }

    /// An install that succeeded holds what the archive holds, by an independent reading of
    /// it, with nothing unsafe, and every byte reads back and verifies.
    static func checkInstalled(_ result: InstallResult, census: ArchiveCensus?, cache: LarderCache) {
        guard let census else {
            require(false, "installed an archive libarchive alone cannot read")
            return
        }
        require(census.entries.first.map { ArchiveCensus.bundlePath($0) } == Manifest.entryName, "installed without the manifest first")
        var paths = Set<String>()
        var files: [String: Int64] = [:]
        for entry in census.entries {
            let path = ArchiveCensus.bundlePath(entry)
            require(entry.type == larder_ae_ifreg() || entry.type == larder_ae_ifdir(), "installed an archive with entry type \(entry.type) ('\(path)')")
            require(!entry.isHardLink, "installed an archive with a hard link ('\(path)')")
            require(String(validating: entry.path, as: UTF8.self) != nil, "installed an entry whose name is not UTF-8")
            do { try BundlePath.validate(path) } catch { require(false, "installed an unsafe path '\(path)': \(error)") }
            require(paths.insert(path).inserted, "installed an archive holding '\(path)' twice")
            if entry.type == larder_ae_ifreg(), path != Manifest.entryName { files[path] = entry.size }
        }
        do {
            let manifest = try cache.manifest(result.bundle)
            require(SHA256Hasher.hash(manifest.canonicalBytes) == result.bundle, "the bundle digest is not the manifest's")
            require(Dictionary(uniqueKeysWithValues: manifest.files.map { ($0.path, $0.size) }) == files, "the manifest and the archive's files differ")
            require(try cache.bundle(result.bundle)?.complete == true, "the installed bundle is not complete")
            let lease = try cache.lease(result.bundle)
            defer { lease.release() }
            for file in manifest.files {
                let bytes = try lease.data(at: file.path)
                require(Int64(bytes.count) == file.size && SHA256Hasher.hash(bytes) == file.digest, "'\(file.path)' reads back wrong")
            }
            let verification = try cache.verify()
            require(verification.isClean, "an installed bundle does not verify: \(verification)")
        } catch {
            require(false, "an installed bundle does not read back: \(error)")
        }
    }
}

extension FileManager {
    /// Whether anything, a dangling link included, is at `path`.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}
