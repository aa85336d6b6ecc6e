import Foundation
import LarderCache
import LarderFormat
import LarderHost

/// `larder cache …`: look inside a device cache folder, verify, repair and evict.
enum CacheCommand {
    /// `--cache <dir>`, of `cache` and the `journey` commands.
    static let cache = TypedOption<String>(
        OptionSpec(names: ["--cache"], value: "dir", help: "The cache folder (default: $XDG_CACHE_HOME/larder or ~/.cache/larder)."),
        default: LarderCache.defaultPath)
    static var cacheOption: OptionSpec { cache.spec }
    static let jsonOption = OptionSpec(names: ["--json"], value: nil, help: "Print JSON.")

    static let spec = CommandSpec(
        name: "cache",
        overview: "List, inspect, verify, repair and evict a Larder cache.",
        usage: "larder cache <subcommand> [--cache <dir>] [--json]",
        options: [cacheOption, jsonOption],
        discussion: """
            SUBCOMMANDS:
              ls                      List bundles, most recently used first.
              show <bundle>           Show one bundle and its files.
              install <archive>       Install a bundle archive.
              fetch <bundle> --origin <url>
                                      Fetch a bundle from an origin, only what is missing.
              resolve <url>           Resolve a larder-font:// URL to its stored font.
              verify [--repair]       Re-hash every object; --repair quarantines corrupt ones.
              gc [--dry-run]          Remove objects no bundle uses and stray files.
              evict --to <size>       Evict least recently used bundles down to a size (e.g. 500MB).
              pin <bundle>            Keep a bundle from eviction.
              unpin <bundle>          Allow a bundle to be evicted again.
              stats                   Show counters and usage.
              purge                   Delete everything in the cache, the embedded default too
                                      (a bundle a running process leases goes when its lease ends).

              A <bundle> is its digest (sha256:<hex> or <hex>), a unique hex prefix, or its name.
              See 'larder cache <subcommand> --help' for detailed help.

              ls, show, stats, resolve and verify (without --repair) open the cache read-only:
              they change nothing, and work on a read-only file system and on another user's
              cache.

              A cache folder that is not there is an error (66) for every subcommand but install
              and fetch, which create it: a mistyped --cache fails instead of reading as empty.

            EXIT STATUS: 0 success, 64 usage error, 65 verification found corruption or an
            incomplete bundle, or the archive was refused (or the origin sent bytes that do not
            match, more than the bundle implies, or an encoding it was not asked for), or
            something Larder did not make is where the cache keeps a folder or its index (a
            symbolic link, a FIFO: remove it; nothing was followed or changed), 66 no
            such cache, bundle, font or archive, 69 the origin redirects in a loop or to another
            origin (never followed), 73 the disk
            is full (nothing was left behind) or the cache cannot be written (a read-only file
            system, another user's cache), 75 another process is sweeping, or is still
            downloading the same bundle at the deadline, or the origin could not be reached or
            was too slow (a later fetch resumes), 1 anything else.
            """)

    struct Subcommand: Sendable {
        var spec: CommandSpec
        var positionals: ClosedRange<Int>
        /// How it opens the cache: read-only for those that only look.
        var mode: @Sendable (ParsedArguments) -> LarderCache.Mode
        /// Checks the command line before the cache is opened: a usage error (64) comes first.
        var checkUsage: @Sendable (ParsedArguments, CommandSpec) throws(UsageError) -> Void
        /// Checks the arguments before the cache is opened.
        var validate: @Sendable (ParsedArguments) throws(CacheError) -> Void
        /// Whether it fills the cache, so creates a folder that is not there (`install`,
        /// `fetch`); every other subcommand refuses a missing folder (``CacheFolder``).
        var createsCache: Bool
        var run: @Sendable (ParsedArguments, LarderCache) throws(CacheError) -> ExitCode
    }

    static func sub(
        _ name: String, _ overview: String, _ usage: String, arguments: [(String, String)] = [], options: [OptionSpec] = [],
        positionals: ClosedRange<Int> = 0...0, mode: @escaping @Sendable (ParsedArguments) -> LarderCache.Mode = { _ in .readWrite },
        checkUsage: @escaping @Sendable (ParsedArguments, CommandSpec) throws(UsageError) -> Void = { _, _ in },
        validate: @escaping @Sendable (ParsedArguments) throws(CacheError) -> Void = { _ in }, createsCache: Bool = false,
        run: @escaping @Sendable (ParsedArguments, LarderCache) throws(CacheError) -> ExitCode
    ) -> (String, Subcommand) {
        let spec = CommandSpec(
            name: "cache \(name)", overview: overview, usage: "larder cache \(name)\(usage) [--cache <dir>] [--json]",
            arguments: arguments, options: options + [cacheOption, jsonOption])
        return (name, Subcommand(spec: spec, positionals: positionals, mode: mode, checkUsage: checkUsage, validate: validate, createsCache: createsCache, run: run))
    }

    /// For subcommands that only look inside the cache.
    static let readOnly: @Sendable (ParsedArguments) -> LarderCache.Mode = { _ in .readOnly }

    static let subcommands: [String: Subcommand] = Dictionary(uniqueKeysWithValues: [
        sub("ls", "List the bundles in the cache, most recently used first.", "", mode: readOnly, run: CacheListing.list),
        sub("show", "Show one bundle and its files.", " <bundle>", arguments: [("<bundle>", "Digest, hex prefix or name.")],
            positionals: 1...1, mode: readOnly, run: CacheListing.show),
        sub("install", "Install a bundle archive into the cache.", " <archive>",
            arguments: [("<archive>", "A .tar.gz written by 'larder pack'.")], positionals: 1...1, createsCache: true, run: CacheOperations.install),
        sub("fetch", "Fetch a bundle from a static origin, downloading only what the cache lacks.",
            " <bundle-digest> --origin <url> [--deadline <duration>] [--timeout <duration>]",
            arguments: [("<bundle-digest>", "sha256:<hex> or <hex>")],
            options: [OriginOption.spec, DurationOption.deadline, DurationOption.timeout],
            positionals: 1...1, checkUsage: CacheFetch.checkUsage, createsCache: true, run: CacheFetch.run),
        sub("resolve", "Resolve a larder-font:// URL to its stored font.", " <url>",
            arguments: [("<url>", "larder-font://sha256/<hex>")], positionals: 1...1, mode: readOnly,
            validate: { (arguments) throws(CacheError) in
                do throws(FormatError) { _ = try FontURL(parsing: arguments.positionals[0]) } catch { throw CacheError(malformedFontURL: error) }
            }, run: CacheOperations.resolve),
        sub("verify", "Re-hash every stored object and list incomplete bundles.", " [--repair]",
            options: [OptionSpec(names: ["--repair"], value: nil, help: "Quarantine corrupt objects and list the bundles to refetch.")],
            mode: { $0.flag("--repair") ? .readWrite : .readOnly }, run: CacheOperations.verify),
        sub("gc", "Remove objects no bundle uses, and stray files.", " [--dry-run]",
            options: [OptionSpec(names: ["--dry-run"], value: nil, help: "Report what would be removed.")], run: CacheOperations.sweep),
        sub("evict", "Evict least recently used bundles down to a size.", " --to <size>",
            options: [CacheOperations.evictionSize.spec],
            checkUsage: { (arguments, spec) throws(UsageError) in _ = try CacheOperations.evictionTarget(arguments, spec: spec) },
            run: CacheOperations.evict),
        sub("pin", "Keep a bundle from eviction.", " <bundle>", arguments: [("<bundle>", "Digest, hex prefix or name.")],
            positionals: 1...1, run: { (arguments, cache) throws(CacheError) in try CacheOperations.pin(arguments, cache, true) }),
        sub("unpin", "Allow a bundle to be evicted again.", " <bundle>", arguments: [("<bundle>", "Digest, hex prefix or name.")],
            positionals: 1...1, run: { (arguments, cache) throws(CacheError) in try CacheOperations.pin(arguments, cache, false) }),
        sub("stats", "Show counters and usage.", "", mode: readOnly, run: CacheListing.stats),
        sub("purge", "Delete everything in the cache, the embedded default too.", "", run: CacheOperations.purge),
    ])

    static func run(_ arguments: [String]) -> ExitCode {
        let json = FailureJSON.wanted(arguments)
        guard let name = arguments.first, !name.hasPrefix("-") else {
            if arguments.contains("-h") || arguments.contains("--help") { Console.out(spec.helpText); return .success }
            return FailureJSON.usage(UsageError(message: "Missing subcommand", command: spec), json: json)
        }
        guard let subcommand = subcommands[name] else {
            return FailureJSON.usage(
                UsageError(message: "Unknown subcommand '\(name)'" + ClosestName.hint(name, among: subcommands.keys.sorted()), command: spec), json: json)
        }
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: subcommand.spec, positionalCount: subcommand.positionals)
        } catch {
            return FailureJSON.usage(error, json: json)
        }
        if parsed.wantsHelp { Console.out(subcommand.spec.helpText); return .success }
        let path: String
        do throws(UsageError) {
            try subcommand.checkUsage(parsed, subcommand.spec)
            path = try parsed[Self.cache]
        } catch {
            return FailureJSON.usage(error, json: json)
        }
        do {
            try subcommand.validate(parsed)
            if !subcommand.createsCache { try CacheFolder.requireExisting(path) }
            let configuration = LarderCache.Configuration(mode: subcommand.mode(parsed))
            let cache = try LarderCache(at: path, configuration: configuration)
            return try subcommand.run(parsed, cache)
        } catch {
            return failed(error, json: parsed.flag("--json"))
        }
    }

    /// A cache error: `Error: …` on stderr, with `--json` the failure object on stdout
    /// (``FailureJSON``); the exit status by its code.
    static func failed(_ error: CacheError, json: Bool) -> ExitCode {
        FailureJSON.failed(ExitCode(error), code: error.code.rawValue, message: error.description, path: error.path, json: json)
    }

    /// A cache (or the host state in it) that could not be opened: "cannot open the cache …" on
    /// stderr, with `json` the failure object (``FailureJSON``) on stdout; the exit status by
    /// the error's code.
    static func openingFailed(_ error: any Error, at path: String, json: Bool) -> ExitCode {
        Console.failure(openingFailure(error, at: path))
        let status = ExitCode(any: error) ?? .failure
        let code =
            switch error {
            case let error as CacheError: error.code.rawValue
            case let error as HostError: error.code.rawValue
            default: "failure"
            }
        if json {
            let named = (error as? CacheError)?.path
            let message = "cannot open the cache" + (named != nil ? "" : " at \(path)") + ": \(error)"
            FailureJSON.print(status, code: code, message: message, path: named ?? path)
        }
        return status
    }

    /// "cannot open the cache …", naming the cache folder once.
    static func openingFailure(_ error: any Error, at path: String) -> String {
        let named = (error as? CacheError)?.path != nil
        return "cannot open the cache" + (named ? "" : " at \(shown(path))") + ": \(shown(error))"
    }

    /// Finds a bundle by digest, unique hex prefix (4+ digits) or name.
    /// - Throws: ``CacheError/Code/bundleNotFound`` when none matches, saying why: a prefix
    ///   shorter than 4 digits, one that matches several bundles (naming them), or nothing.
    static func find(_ reference: String, in cache: LarderCache) throws(CacheError) -> CachedBundle {
        let bundles = try cache.bundles()
        let hex = reference.hasPrefix(Digest.prefix) ? String(reference.dropFirst(Digest.prefix.count)) : reference
        var matches = bundles.filter { $0.name == reference }
        if matches.isEmpty && hex.count >= minimumPrefix { matches = bundles.filter { $0.digest.hex.hasPrefix(hex) } }
        if matches.count == 1 { return matches[0] }
        let isHex = !hex.isEmpty && hex.allSatisfy { $0.isHexDigit }
        let message: String
        if matches.count > 1 {
            let shownMatches = matches.prefix(5).map { "\($0.digest.hex.prefix(max(hex.count + 4, 12)))… \($0.name)" }
            message = "'\(reference)' matches \(matches.count) bundles (\(shownMatches.joined(separator: ", "))"
                + (matches.count > 5 ? ", …" : "") + "); give more of the digest, enough hex digits to tell them apart"
        } else if isHex && hex.count < minimumPrefix {
            message = "no bundle matches '\(reference)': a digest prefix needs at least \(minimumPrefix) hex digits "
                + "(no bundle is named '\(reference)' either); 'larder cache ls' lists the bundles"
        } else if isHex && hex.contains(where: { $0.isUppercase }) {
            message = "no bundle matches '\(reference)': digests are lowercase hex; 'larder cache ls' lists the bundles"
        } else {
            message = "no bundle matches '\(reference)' (by name, digest or digest prefix); 'larder cache ls' lists the bundles"
        }
        throw CacheError(.bundleNotFound, message)
    }

    /// The fewest hex digits a digest prefix may have.
    static let minimumPrefix = 4
}
