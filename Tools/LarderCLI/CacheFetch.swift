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

    static func run(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let spec = CacheCommand.subcommands["fetch"]!.spec
        let json = arguments.flag("--json")
        let origin: URL
        do throws(UsageError) {
            guard let url = try arguments[Self.origin] else { throw UsageError(message: originRefusal, command: spec) }
            origin = url
        } catch {
            return FailureJSON.usage(error, json: json)
        }
        let bundle: Digest
        do {
            let text = arguments.positionals[0]
            bundle = text.hasPrefix(Digest.prefix) ? try Digest(parsing: text) : try Digest(hex: text)
        } catch {
            return FailureJSON.usage(UsageError(message: error.message, command: spec), json: json)
        }
        var configuration = BundleFetcher.Configuration.patching
        do throws(UsageError) {
            configuration.deadline = try DurationOption.value(DurationOption.deadline, in: arguments, default: configuration.deadline, command: spec)
            configuration.requestTimeout = try DurationOption.value(
                DurationOption.timeout, in: arguments, default: configuration.requestTimeout, command: spec)
        } catch {
            return FailureJSON.usage(error, json: json)
        }
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
