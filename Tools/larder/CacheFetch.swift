import Foundation
import LarderCache
import LarderFormat
import LarderTransport

/// `larder cache fetch <bundle> --origin <url>`: brings a bundle from a static origin into the
/// cache, downloading only what the cache lacks.
enum CacheFetch {
    static func run(_ arguments: ParsedArguments, _ cache: LarderCache) throws(CacheError) -> ExitCode {
        let spec = CacheCommand.subcommands["fetch"]!.spec
        guard let originText = arguments.value("--origin"), let origin = URL(string: originText.hasSuffix("/") ? originText : originText + "/"),
            origin.scheme == "http" || origin.scheme == "https"
        else {
            return Console.usageError(UsageError(message: "Missing or invalid '--origin <url>' (http or https)", command: spec))
        }
        let bundle: Digest
        do {
            let text = arguments.positionals[0]
            bundle = text.hasPrefix(Digest.prefix) ? try Digest(parsing: text) : try Digest(hex: text)
        } catch {
            return Console.usageError(UsageError(message: error.message, command: spec))
        }
        let bar = ProgressBar(label: "fetching")
        let fetcher = BundleFetcher(cache: cache, origin: origin, downloads: cache.root + "/downloads")
        let outcome = LockedOutcome()
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(TransportError) {
                outcome.set(.success(try await fetcher.fetch(bundle) { fraction in bar.update(Int(fraction * 1000), 1000) }))
            } catch {
                outcome.set(.failure(error))
            }
            done.signal()
        }
        done.wait()
        bar.finish()
        switch outcome.get() {
        case .success(let result):
            if arguments.flag("--json") {
                Console.json(.object([
                    "bundle": .string(result.bundle.description), "source": .string("\(result.source)"),
                    "bytesDownloaded": .int(result.bytesDownloaded), "requests": .int(Int64(result.requests)),
                ]))
            } else {
                Console.out("fetched \(result.bundle) (\(result.source)): \(humanSize(result.bytesDownloaded)) in \(result.requests) requests")
            }
            return .success
        case .failure(let error):
            Console.error("error: \(error)")
            if let cacheError = error.cacheError { throw cacheError }
            switch error.code {
            case .digestMismatch, .malformedDocument: return .dataError
            case .unexpectedStatus where error.status == 404: return .noInput
            case .connection, .timeout: return .temporaryFailure
            default: return .failure
            }
        case nil:
            return .failure
        }
    }
}

/// The fetch's outcome, handed from the task to the waiting command.
private final class LockedOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<FetchResult, TransportError>?
    func set(_ outcome: Result<FetchResult, TransportError>) { lock.lock(); value = outcome; lock.unlock() }
    func get() -> Result<FetchResult, TransportError>? { lock.lock(); defer { lock.unlock() }; return value }
}
