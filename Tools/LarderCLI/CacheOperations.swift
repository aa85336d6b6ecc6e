import Foundation
import LarderCache
import LarderFormat

/// `larder cache install | resolve | verify | gc | evict | pin | unpin | purge`.
enum CacheOperations {
    static func install(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let path = arguments.positionals[0]
        do { _ = try ReadableFile(path: path) } catch {
            let message = FileManager.default.fileExists(atPath: path) ? "\(error)" : "\(path): no such archive"
            return FailureJSON.failed(.noInput, code: "no-input", message: message, path: path, json: arguments.flag("--json"))
        }
        let result = try cache.install(archiveAt: path, expected: BundleVerifier.digestFromFileName(path))
        if arguments.flag("--json") {
            Console.json(.object([
                "bundle": .string(result.bundle.description), "name": .string(result.name),
                "alreadyPresent": .bool(result.alreadyPresent), "objectsWritten": .int(Int64(result.objectsWritten)),
                "bytesWritten": .int(result.bytesWritten), "evicted": .array(result.evicted.map { .string($0.description) }),
            ]))
        } else if result.alreadyPresent {
            Console.out("\(shown(result.name)) \(result.bundle) is already installed")
        } else {
            Console.out("Installed \(shown(result.name)) \(result.bundle): \(result.objectsWritten) new objects, \(humanSize(result.bytesWritten))")
            for digest in result.evicted { Console.out("  evicted \(digest)") }
        }
        return .success
    }

    static func resolve(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let url: FontURL
        do throws(FormatError) { url = try FontURL(parsing: arguments.positionals[0]) } catch { throw CacheError(malformedFontURL: error) }
        let font = try cache.resolveFont(url)
        if arguments.flag("--json") {
            Console.json(.object([
                "digest": .string(font.digest.description), "mediaType": .string(font.mediaType), "size": .int(Int64(font.bytes.count)),
            ]))
        } else {
            Console.out("\(font.digest)  \(shown(font.mediaType))  \(humanSize(Int64(font.bytes.count)))")
        }
        return .success
    }

    static func verify(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let bar = ProgressBar(label: "verifying")
        let result = try cache.verify(repair: arguments.flag("--repair")) { done, total in bar.update(done, total) }
        bar.finish()
        if arguments.flag("--json") {
            Console.json(.object([
                "clean": .bool(result.isClean), "objectsChecked": .int(Int64(result.objectsChecked)),
                "bytesChecked": .int(result.bytesChecked), "repaired": .bool(result.repaired && !result.corrupt.isEmpty),
                "corrupt": .array(result.corrupt.map { .string($0.description) }),
                "damage": .object(Dictionary(uniqueKeysWithValues: result.damage.map { ($0.key.description, JSONValue.string($0.value)) })),
                "incomplete": .array(result.incomplete.map { .string($0.description) }),
                "refetch": .array(result.bundlesToRefetch.map { .string($0.description) }),
            ]))
        } else if result.isClean {
            Console.out("OK: \(result.objectsChecked) objects, \(humanSize(result.bytesChecked)) verified")
        } else {
            for object in result.corrupt {
                Console.error("corrupt: \(object)\(result.damage[object].map { ": \(shown($0))" } ?? "")\(result.repaired ? " (quarantined)" : "")")
            }
            for bundle in result.incomplete { Console.error("incomplete: \(bundle)") }
            for bundle in result.bundlesToRefetch { Console.error("refetch: \(bundle)") }
            var findings: [String] = []
            if !result.corrupt.isEmpty {
                findings.append("\(result.corrupt.count) of \(result.objectsChecked) objects are damaged\(result.repaired ? " (quarantined)" : "")")
            }
            if !result.incomplete.isEmpty {
                findings.append("\(result.incomplete.count) bundle\(result.incomplete.count == 1 ? " is" : "s are") incomplete")
            }
            let advice = result.repaired || result.corrupt.isEmpty ? "refetch the bundles listed" : "run with --repair to quarantine them, then refetch the bundles listed"
            Console.error("FAILED: " + findings.joined(separator: "; ") + "; " + advice)
        }
        return result.isClean ? .success : .dataError
    }

    static func sweep(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let dryRun = arguments.flag("--dry-run")
        guard let report = try cache.sweep(dryRun: dryRun) else {
            return FailureJSON.failed(
                .temporaryFailure, code: CacheError.Code.busy.rawValue, message: "another process is sweeping this cache; try again later",
                path: cache.root, json: arguments.flag("--json"))
        }
        if arguments.flag("--json") {
            Console.json(.object([
                "dryRun": .bool(dryRun), "milliseconds": .int(report.milliseconds),
                "strayFiles": .array(report.strayFiles.map { .string($0) }), "strayBytes": .int(report.strayBytes),
                "downloadBytes": .int(report.downloadBytes), "bundlesRemoved": .array(report.bundlesRemoved.map { .string($0.description) }),
            ]))
        } else {
            let verb = dryRun ? "would remove" : "removed"
            let downloads = report.downloadBytes > 0 ? " and \(humanSize(report.downloadBytes)) of finished or abandoned downloads" : ""
            let count = report.bundlesRemoved.count
            let released = count > 0 ? ", \(count) bundle\(count == 1 ? "" : "s") whose removal waited for a lease that ended" : ""
            Console.out(
                "gc \(verb) \(report.strayFiles.count) files no bundle uses (\(humanSize(report.strayBytes)))\(downloads)\(released) in \(report.milliseconds) ms")
        }
        return .success
    }

    static func evict(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let target: Int64
        do throws(UsageError) { target = try evictionTarget(arguments, spec: CacheCommand.subcommands["evict"]!.spec) } catch {
            return FailureJSON.usage(error, json: arguments.flag("--json"))
        }
        let report = try cache.evict(toBytes: target)
        if arguments.flag("--json") {
            Console.json(.object([
                "evicted": .array(report.evicted.map { .string($0.description) }), "bytesFreed": .int(report.bytesFreed),
                "bytesAfter": .int(report.bytesAfter),
            ]))
        } else {
            for digest in report.evicted { Console.out("evicted \(digest)") }
            Console.out("freed \(humanSize(report.bytesFreed)); the cache holds \(humanSize(report.bytesAfter))")
            if report.bytesAfter > target { Console.error("warning: pinned, leased or embedded bundles keep the cache above \(humanSize(target))") }
        }
        return .success
    }

    static func pin(_ arguments: ParsedArguments, _ cache: LarderCache, _ pinned: Bool) throws(CacheError) -> ExitCode {
        let bundle = try CacheCommand.find(arguments.positionals[0], in: cache)
        try cache.setPinned(bundle.digest, pinned)
        if arguments.flag("--json") {
            Console.json(.object(["bundle": .string(bundle.digest.description), "pinned": .bool(pinned)]))
        } else {
            Console.out("\(pinned ? "pinned" : "unpinned") \(shown(bundle.name)) \(bundle.digest)")
        }
        return .success
    }

    /// Like every other removal, a purge leaves a bundle a live process leases (a flow on screen)
    /// until its last lease ends; it names those and says so.
    static func purge(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let before = try cache.statistics()
        let report = try cache.purge()
        let freed = before.bytesOnDisk - (try cache.statistics().bytesOnDisk)
        if arguments.flag("--json") {
            Console.json(.object([
                "bundlesRemoved": .int(Int64(report.removed.count)), "bytesFreed": .int(freed),
                "waitingForLeases": .array(report.waiting.map { .string($0.description) }),
            ]))
        } else {
            Console.out("purged \(report.removed.count) bundles, \(humanSize(freed))")
        }
        if !report.waiting.isEmpty, !arguments.flag("--json") {
            for digest in report.waiting { Console.error("leased: \(digest)") }
            let count = report.waiting.count
            Console.error(
                "warning: \(count) bundle\(count == 1 ? " is" : "s are") leased by a running process (a flow on screen): "
                    + "out of every scope now, removed when \(count == 1 ? "its" : "their") last lease ends")
        }
        return .success
    }

    /// The `--to <size>` of `cache evict`; missing or not a size is a usage error.
    static func evictionTarget(_ arguments: ParsedArguments, spec: CommandSpec) throws(UsageError) -> Int64 {
        guard let target = try evictionSize.value(in: arguments, command: spec) else { throw UsageError(message: "Missing '--to <size>'", command: spec) }
        return target
    }

    /// `cache evict --to <size>`, declared once (``TypedOption``).
    static let evictionSize = TypedOption<Int64?>(
        OptionSpec(names: ["--to"], value: "size", help: "Target size: bytes, or with kB, MB, GB (1000s) or KiB, MiB, GiB."), default: nil
    ) { text in
        guard let target = parseSize(text) else { return .failure(OptionRefusal(message: "'\(shown(text))' is not a size (try 500MB or 2GiB)")) }
        return .success(target)
    }

    /// "1234", "500MB", "1.5GB", "2GiB", "64k".
    static func parseSize(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = trimmed.prefix { $0.isNumber || $0 == "." }
        guard let value = Double(number), value >= 0 else { return nil }
        let units: [String: Double] = [
            "": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
            "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824, "tib": 1_099_511_627_776,
        ]
        guard let unit = units[trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces).lowercased()] else { return nil }
        // Past Int64 (about 9.2 EB) is no size a cache can have: refused, not trapped on.
        return Int64(exactly: (value * unit).rounded(.down))
    }
}
