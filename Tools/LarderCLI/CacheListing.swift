import Foundation
import LarderCache
import LarderFormat

/// `larder cache ls | show | stats`.
enum CacheListing {
    static func list(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let bundles = try cache.bundles()
        let usage = try cache.bundleUsage()
        if arguments.flag("--json") {
            Console.json(.array(bundles.map { json($0, usage: usage[$0.digest]) }))
            return .success
        }
        guard !bundles.isEmpty else {
            Console.out("The cache at \(shown(cache.root)) is empty.")
            return .success
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var rows = [["BUNDLE", "NAME", "SIZE", "UNIQUE", "SHARED", "FILES", "USED", "FLAGS", "JOURNEYS"]]
        for bundle in bundles {
            let use = usage[bundle.digest]
            rows.append([
                String(bundle.digest.hex.prefix(12)), bundle.name, humanSize(bundle.size), humanSize(use?.uniqueBytes ?? 0),
                humanSize(use?.sharedBytes ?? 0), "\(bundle.fileCount)", age(now - bundle.lastUsed), flags(bundle),
                journeys(use),
            ])
        }
        Console.out(table(rows))
        Console.out("UNIQUE: bytes only this bundle uses, what evicting it frees; SHARED: bytes other bundles use too.")
        return .success
    }

    static func show(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let bundle = try CacheCommand.find(arguments.positionals[0], in: cache)
        let manifest = try cache.manifest(bundle.digest)
        let use = try cache.bundleUsage()[bundle.digest]
        if arguments.flag("--json") {
            var object = json(bundle, usage: use)
            if case .object(var members) = object {
                members["manifest"] = manifest.jsonValue
                object = .object(members)
            }
            Console.json(object)
            return .success
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var rows = [["PATH", "SIZE", "ROLE", "ESSENTIAL", "OBJECT"]]
        for file in manifest.files {
            rows.append([file.path, humanSize(file.size), file.role.rawValue, file.essential ? "yes" : "", String(file.digest.hex.prefix(12))])
        }
        Console.out("""
            Bundle   \(shown(bundle.name))
            Digest   \(bundle.digest)
            Entry    \(shown(manifest.entry))
            Size     \(humanSize(bundle.size)) in \(bundle.fileCount) files
            Used     \(age(now - bundle.lastUsed)), installed \(age(now - bundle.installedAt))
            Flags    \(flags(bundle).isEmpty ? "none" : flags(bundle))
            Bytes    \(humanSize(use?.uniqueBytes ?? 0)) only this bundle uses (evicting it frees them), \(humanSize(use?.sharedBytes ?? 0)) shared with other bundles
            Journeys \(journeys(use).isEmpty ? "none (no scope holds it)" : shown(journeys(use)))

            \(table(rows))
            """)
        return .success
    }

    static func stats(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let stats = try cache.statistics()
        let values: [(String, Int64)] = [
            ("bundles", Int64(stats.bundles)), ("objects", Int64(stats.objects)), ("bytesOnDisk", stats.bytesOnDisk),
            ("evictions", stats.evictions), ("integrityFailures", stats.integrityFailures), ("sweeps", stats.sweeps),
            ("lastSweepMilliseconds", stats.lastSweepMilliseconds), ("diskHits", Int64(stats.diskHits)),
            ("diskMisses", Int64(stats.diskMisses)), ("memoryHits", Int64(stats.memory.hits)),
            ("memoryMisses", Int64(stats.memory.misses)), ("memoryBytes", Int64(stats.memory.bytes)),
        ]
        if arguments.flag("--json") {
            var object = Dictionary(uniqueKeysWithValues: values.map { ($0.0, JSONValue.int($0.1)) })
            object["hitCounters"] = .string("process")
            Console.json(.object(object))
            return .success
        }
        Console.out(table([["COUNTER", "VALUE"]] + values.map { name, value in
            [name, name == "bytesOnDisk" ? "\(humanSize(value)) (\(value))" : "\(value)"]
        }))
        Console.out("diskHits, diskMisses and the memory counters count this process only (this command's own reads), not the cache's history.")
        return .success
    }

    static func json(_ bundle: CachedBundle, usage: BundleUsage?) -> JSONValue {
        .object([
            "digest": .string(bundle.digest.description), "name": .string(bundle.name), "size": .int(bundle.size),
            "fileCount": .int(Int64(bundle.fileCount)), "installedAt": .int(bundle.installedAt), "lastUsed": .int(bundle.lastUsed),
            "pinned": .bool(bundle.pinned), "embedded": .bool(bundle.embedded), "complete": .bool(bundle.complete),
            "uniqueBytes": .int(usage?.uniqueBytes ?? 0), "sharedBytes": .int(usage?.sharedBytes ?? 0),
            "scopes": .array((usage?.scopes ?? []).map(JSONValue.string)),
        ])
    }

    /// The journeys holding a bundle, each once, with how many scopes (people) hold it.
    static func journeys(_ usage: BundleUsage?) -> String {
        var counts: [String: Int] = [:]
        for scope in usage?.scopes ?? [] { counts[scope, default: 0] += 1 }
        return counts.keys.sorted().map { counts[$0]! > 1 ? "\($0) (\(counts[$0]!) scopes)" : $0 }.joined(separator: ",")
    }

    static func flags(_ bundle: CachedBundle) -> String {
        [bundle.pinned ? "pinned" : nil, bundle.embedded ? "embedded" : nil, bundle.complete ? nil : "INCOMPLETE"]
            .compactMap { $0 }.joined(separator: ",")
    }

    /// "just now", "42s ago", "5m ago", "3h ago", "2d ago".
    static func age(_ milliseconds: Int64) -> String {
        let seconds = max(0, milliseconds / 1000)
        switch seconds {
        case 0..<2: return "just now"
        case 2..<60: return "\(seconds)s ago"
        case 60..<3600: return "\(seconds / 60)m ago"
        case 3600..<86_400: return "\(seconds / 3600)h ago"
        default: return "\(seconds / 86_400)d ago"
        }
    }
}
