import Foundation
import LarderCache
import LarderFetch
import LarderFormat
import LarderTransport

/// `larder cache fetch <bundle> --origin <url>`: brings a bundle from a static origin into the
/// cache, downloading only what the cache lacks.
enum CacheFetch {
    /// The message for an `--origin` missing or refused.
    static let originRefusal = "Missing or invalid '--origin <url>' (http or https)"

    /// `--origin <url>`: nil when absent.
    static let origin = TypedOption<URL?>(OriginOption.spec, default: nil) { text in
        OriginOption.url(text).map { .success($0) } ?? .failure(OptionRefusal(message: originRefusal))
    }

    /// What to fetch, from where, within which limits: the command line checked whole.
    struct Request {
        var origin: URL
        var bundle: Digest
        var configuration: BundleFetcher.Configuration
    }

    /// The request the command line asks for.
    /// - Throws: ``UsageError`` for a missing or refused `--origin`, a bundle that is not a
    ///   digest, or a refused `--deadline`/`--timeout`.
    static func request(_ arguments: ParsedArguments, spec: CommandSpec) throws(UsageError) -> Request {
        guard let origin = try arguments[Self.origin] else { throw UsageError(message: originRefusal, command: spec) }
        let bundle: Digest
        do throws(FormatError) {
            let text = arguments.positionals[0]
            bundle = text.hasPrefix(Digest.prefix) ? try Digest(parsing: text) : try Digest(hex: text)
        } catch {
            throw UsageError(message: error.message, command: spec)
        }
        var configuration = BundleFetcher.Configuration.patching
        configuration.deadline = try DurationOption.value(DurationOption.deadline, in: arguments, default: configuration.deadline, command: spec)
        configuration.requestTimeout = try DurationOption.value(
            DurationOption.timeout, in: arguments, default: configuration.requestTimeout, command: spec)
        return Request(origin: origin, bundle: bundle, configuration: configuration)
    }

    /// Checks the command line before the cache is opened (and made), so a usage error leaves
    /// no folder behind.
    static func checkUsage(_ arguments: ParsedArguments, _ spec: CommandSpec) throws(UsageError) {
        _ = try request(arguments, spec: spec)
    }

    static func run(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let spec = CacheCommand.subcommands["fetch"]!.spec
        let json = arguments.flag("--json")
        let request: Request
        do throws(UsageError) { request = try Self.request(arguments, spec: spec) } catch {
            return FailureJSON.usage(error, json: json)
        }
        let (origin, bundle, configuration) = (request.origin, request.bundle, request.configuration)
        let bar = ProgressBar(label: "fetching", quiet: arguments.flag("--json"))
        let fetcher = BundleFetcher(cache: cache, origin: origin, configuration: configuration)
        let outcome: Result<FetchResult, TransportError> = waitFor {
            do throws(TransportError) {
                return .success(try await fetcher.fetch(bundle) { progress in bar.update(bytes: progress.receivedBytes, of: progress.expectedBytes) })
            } catch {
                return .failure(error)
            }
        }
        bar.finish()
        switch outcome {
        case .success(let result):
            if arguments.flag("--json") {
                Console.json(.object([
                    "bundle": .string(result.bundle.description), "source": .string("\(result.source)"),
                    "bytesDownloaded": .int(result.bytesDownloaded), "requests": .int(Int64(result.requests)),
                    "bytes": Self.json(result.bytesByKind), "patchesApplied": .int(Int64(result.patchesApplied)),
                    "patchFallbacks": .int(Int64(result.patchFallbacks)),
                ]))
            } else {
                Console.out("fetched \(result.bundle) (\(result.source)): \(humanSize(result.bytesDownloaded)) in \(result.requests) requests")
                if result.patchesApplied + result.patchFallbacks > 0 {
                    Console.out(
                        "  patches: \(result.patchesApplied) applied (\(humanSize(result.bytesByKind.patches))), \(result.patchFallbacks) fell back to whole objects")
                }
            }
            return .success
        case .failure(let error):
            return FailureJSON.failed(ExitCode(error), code: error.code.rawValue, message: error.description, path: nil, json: json)
        }
    }

    /// A fetch's bytes by kind, as `cache fetch --json` and the journey timeline report them.
    static func json(_ bytes: FetchBytes) -> JSONValue {
        .object(["manifest": .int(bytes.manifest), "archive": .int(bytes.archive), "objects": .int(bytes.objects), "patches": .int(bytes.patches)])
    }
}
