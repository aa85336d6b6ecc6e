import LarderFormat

/// What the index knows about objects without a row per object.
///
/// An object is *stored* while a bundle row uses it and it is not quarantined; the `objects`
/// view lists exactly those, from `files`. Asking it (or `files`) by object scans, which only
/// the rare questions do: eviction, quarantine, verify, sweep. Installs instead keep two
/// running totals in `counters` (`stored_objects`, `stored_bytes`): each commit adds the
/// objects it moved into the store. Only a crash or a failure between moving objects into
/// place (or evicting them) and the commit that accounts for them can leave the totals off;
/// it leaves something in `staging/` behind, and the next ``MaintenanceSession`` recounts with
/// ``recount()`` before cleaning up (the rule is described there).
///
/// There is no index by object on purpose: digests are random, and such an index would cost
/// every install a random page write per object.
extension CacheIndex {
    // MARK: Stored totals

    /// Adds to (or, with negative amounts, subtracts from) the stored totals.
    func addToStored(objects: Int, bytes: Int64) throws(CacheError) {
        guard objects != 0 || bytes != 0 else { return }
        try increment("stored_objects", by: Int64(objects))
        try increment("stored_bytes", by: bytes)
    }

    /// Bytes stored (each object once), objects and bundles.
    func usage() throws(CacheError) -> (bytes: Int64, objects: Int, bundles: Int) {
        let query = try database.prepare(
            """
            SELECT (SELECT IFNULL(MAX(value), 0) FROM counters WHERE name = 'stored_bytes'),
                   (SELECT IFNULL(MAX(value), 0) FROM counters WHERE name = 'stored_objects'),
                   (SELECT COUNT(*) FROM bundles)
            """)
        _ = try query.step()
        return (query.int(0), Int(query.int(1)), Int(query.int(2)))
    }

    /// Sets the stored totals from the rows, forgetting quarantined objects no bundle uses.
    /// Call inside a transaction, holding the sweep lock exclusively (no install between
    /// placing objects and committing).
    func recount() throws(CacheError) {
        try database.execute("DELETE FROM quarantined WHERE digest NOT IN (SELECT object FROM files)")
        let totals = try database.prepare("SELECT COUNT(*), IFNULL(SUM(size), 0) FROM objects")
        _ = try totals.step()
        let set = try database.prepare("INSERT OR REPLACE INTO counters(name, value) VALUES(?, ?)")
        try set.bind(.text("stored_objects"), .int(totals.int(0))).run()
        try set.bind(.text("stored_bytes"), .int(totals.int(1))).run()
    }

    // MARK: Removing bundles

    /// Deletes bundle rows (with their files and scopes) and takes the objects nothing uses
    /// any more off the stored totals.
    /// - Returns: those objects; their files must be unlinked once this commits.
    func deleteBundles(_ digests: [Digest]) throws(CacheError) -> [Digest] {
        guard !digests.isEmpty else { return [] }
        var candidates: [String: (digest: Digest, size: Int64)] = [:]
        let used = try database.prepare("SELECT object, size FROM files WHERE bundle = ?")
        let delete = try database.prepare("DELETE FROM bundles WHERE digest = ?")
        for digest in digests {
            try used.bind(.text(digest.description))
            while try used.step() { candidates[used.text(0)] = (try used.digest(0), used.int(1)) }
            try delete.bind(.text(digest.description)).run()
        }
        let remaining = try database.prepare("SELECT object FROM files")
        while try remaining.step(), !candidates.isEmpty { candidates.removeValue(forKey: remaining.text(0)) }
        let anyQuarantined = try hasQuarantined()
        var orphans: [Digest] = []
        var freed = (objects: 0, bytes: Int64(0))
        for (text, (digest, size)) in candidates {
            orphans.append(digest)
            // A quarantined object was taken off the totals already.
            let wasQuarantined = anyQuarantined ? try releaseFromQuarantine(text) : false
            if !wasQuarantined { freed = (freed.objects + 1, freed.bytes + size) }
        }
        try addToStored(objects: -freed.objects, bytes: -freed.bytes)
        return orphans.sorted()
    }

    // MARK: Quarantine

    /// Marks every bundle using a corrupt object incomplete and takes the object off the
    /// stored totals (once, however often it is quarantined).
    /// - Returns: the bundles to refetch, sorted.
    func quarantine(_ object: Digest) throws(CacheError) -> [Digest] {
        let query = try database.prepare("SELECT bundle, size FROM files WHERE object = ?")
        try query.bind(.text(object.description))
        var bundles = Set<Digest>()
        var size: Int64 = 0
        while try query.step() {
            bundles.insert(try query.digest(0))
            size = query.int(1)
        }
        guard !bundles.isEmpty else { return [] }
        let incomplete = try database.prepare("UPDATE bundles SET complete = 0 WHERE digest = ?")
        for bundle in bundles { try incomplete.bind(.text(bundle.description)).run() }
        try database.prepare("INSERT OR IGNORE INTO quarantined(digest) VALUES(?)").bind(.text(object.description)).run()
        if database.changes > 0 { try addToStored(objects: -1, bytes: -size) }
        return bundles.sorted()
    }

    /// Takes objects that are back in the store out of quarantine.
    /// - Returns: those that were quarantined.
    func releaseFromQuarantine(_ objects: Set<Digest>) throws(CacheError) -> Set<Digest> {
        guard try hasQuarantined() else { return [] }
        var released = Set<Digest>()
        for object in objects where try releaseFromQuarantine(object.description) { released.insert(object) }
        return released
    }

    private func hasQuarantined() throws(CacheError) -> Bool {
        let query = try database.prepare("SELECT EXISTS(SELECT 1 FROM quarantined)")
        return try query.step() && query.int(0) != 0
    }

    private func releaseFromQuarantine(_ text: String) throws(CacheError) -> Bool {
        try database.prepare("DELETE FROM quarantined WHERE digest = ?").bind(.text(text)).run()
        return database.changes > 0
    }

    // MARK: Questions by object (these scan)

    /// Whether a bundle uses the object and it is not quarantined.
    func isStored(_ object: Digest) throws(CacheError) -> Bool {
        let query = try database.prepare(
            "SELECT EXISTS(SELECT 1 FROM files WHERE object = ?1) AND NOT EXISTS(SELECT 1 FROM quarantined WHERE digest = ?1)")
        try query.bind(.text(object.description))
        return try query.step() && query.int(0) != 0
    }

    /// Which of `objects` a bundle uses and are not quarantined: one pass over the files
    /// however many are asked about (the digests go in as one JSON array, `json_each`), where
    /// ``isStored(_:)`` is a pass per object. There is no index by object: it would cost every
    /// install a write.
    func stored(among objects: Set<Digest>) throws(CacheError) -> Set<Digest> {
        // Digests print as `sha256:<hex>`: nothing in them needs escaping in JSON.
        let list = "[" + objects.sorted().map { "\"\($0.description)\"" }.joined(separator: ",") + "]"
        let query = try database.prepare(
            """
            SELECT DISTINCT object FROM files WHERE object IN (SELECT value FROM json_each(?1))
                AND object NOT IN (SELECT digest FROM quarantined)
            """)
        try query.bind(.text(list))
        var found = Set<Digest>()
        while try query.step() { found.insert(try query.digest(0)) }
        return found
    }

    /// The bundles that use an object, sorted.
    func bundles(using object: Digest) throws(CacheError) -> [Digest] {
        let query = try database.prepare("SELECT DISTINCT bundle FROM files WHERE object = ? ORDER BY bundle")
        try query.bind(.text(object.description))
        var bundles: [Digest] = []
        while try query.step() { bundles.append(try query.digest(0)) }
        return bundles
    }

    /// Every stored object, with its size.
    func objects() throws(CacheError) -> [(digest: Digest, size: Int64)] {
        let query = try database.prepare("SELECT digest, size FROM objects ORDER BY digest")
        var result: [(Digest, Int64)] = []
        while try query.step() { result.append((try query.digest(0), query.int(1))) }
        return result
    }

    /// The hex names of every object a bundle uses (quarantined ones too), as the sweep
    /// compares them with the files under `objects/`.
    func usedObjectNames() throws(CacheError) -> Set<String> {
        let query = try database.prepare("SELECT DISTINCT object FROM files")
        var names = Set<String>()
        while try query.step() { names.insert(String(query.text(0).dropFirst(Digest.prefix.count))) }
        return names
    }

    /// Which stored objects each bundle uses, with their sizes (each pair once).
    func objectReferences() throws(CacheError) -> [Digest: [(object: Digest, size: Int64)]] {
        let query = try database.prepare(
            "SELECT DISTINCT bundle, object, size FROM files WHERE object NOT IN (SELECT digest FROM quarantined)")
        var result: [Digest: [(Digest, Int64)]] = [:]
        while try query.step() {
            result[try query.digest(0), default: []].append((try query.digest(1), query.int(2)))
        }
        return result
    }

    /// Stored font objects, their media types and sizes, for `larder-font:` resolution.
    func fonts() throws(CacheError) -> [Digest: FontRecord] {
        let query = try database.prepare(
            "SELECT DISTINCT object, media_type, size FROM files WHERE role = 'font' AND object NOT IN (SELECT digest FROM quarantined)")
        var result: [Digest: FontRecord] = [:]
        while try query.step() { result[try query.digest(0)] = FontRecord(mediaType: query.text(1), size: query.int(2)) }
        return result
    }
}
