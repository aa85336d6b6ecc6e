import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderTransport

/// `larder journey captures`: lists the captured events queued in a cache's host state, and
/// with `--deliver <url>` posts them there with ``HTTPCaptureSink`` (in order, each settled
/// event removed), as an app would deliver them later.
enum JourneyCaptures {
    static let spec = CommandSpec(
        name: "journey captures",
        overview: "List the captured events queued for delivery, or deliver them.",
        usage: "larder journey captures [--cache <dir>] [--journey <id>] [--deliver <url> --key <key>] [--json]",
        options: [CacheCommand.cacheOption, Options.journey.spec, Options.deliver.spec, Options.key.spec, JourneyCommand.jsonOption],
        discussion: """
            Events keep the visitor, session, journey, revision and context they were created
            with; delivery sends them so, whatever identity is configured now. An event the
            endpoint refuses for good (400, 409, 413, 415, 422, 431) is dropped and reported.

            EXIT STATUS: 0 listed, or every event delivered; 64 usage error; 66 no such cache
            folder; 69 the endpoint
            could not be reached or did not accept an event (it stays queued); 1 anything else.
            """)

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 0...0)
        } catch {
            return Console.usageError(error)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        var delivery: (endpoint: URL, key: String)?
        let journey: String?
        let cachePath: String
        do throws(UsageError) {
            if let url = try parsed[Options.deliver] {
                guard let key = try parsed[Options.key], !key.isEmpty else {
                    throw UsageError(message: "Missing '--key <key>' (needed by '--deliver')", command: spec)
                }
                delivery = (url, key)
            }
            journey = try parsed[Options.journey]
            cachePath = try parsed[CacheCommand.cache]
        } catch {
            return Console.usageError(error)
        }
        let path = cachePath + "/host/capture.sqlite"
        let json = parsed.flag("--json")
        do throws(CacheError) { try CacheFolder.requireExisting(cachePath) } catch { return CacheCommand.failed(error, json: json) }
        guard FileManager.default.fileExists(atPath: path) else {
            if json { Console.json(delivery == nil ? .array([]) : deliveryJSON(CaptureDelivery(delivered: 0, remaining: 0))) } else {
                Console.out("No captured events are queued (no capture queue at \(shown(path))).")
            }
            return .success
        }
        let queue: CaptureQueue
        do { queue = try CaptureQueue(path: path) } catch {
            return FailureJSON.failed(.failure, code: error.code.rawValue, message: "\(error)", path: path, json: json)
        }
        if let (endpoint, key) = delivery {
            let sink = HTTPCaptureSink(endpoint: endpoint, publishableKey: key, transport: platformTransport())
            let result = waitFor { await queue.deliver(to: sink, batchSize: 50, maxBatches: 10_000) }
            if json { Console.json(deliveryJSON(result)) } else {
                var lines = ["Delivered \(result.delivered), refused \(result.refused.count), still queued \(result.remaining)."]
                lines += result.refused.map { "refused \(shown($0.id)): \(shown($0.reason))" }
                Console.out(lines.joined(separator: "\n"))
            }
            guard let error = result.error else { return .success }
            Console.failure("\(shown(error))")
            return error.code == .storage ? .failure : .unavailable
        }
        let events: [CaptureEvent]
        do { events = try queue.pending().filter { event in journey.map { event.journey == $0 } ?? true } } catch {
            return FailureJSON.failed(.failure, code: error.code.rawValue, message: "\(error)", path: path, json: json)
        }
        if json {
            Console.json(.array(events.map(eventJSON)))
        } else if events.isEmpty {
            Console.out("No captured events are queued.")
        } else {
            var rows = [["EVENT", "JOURNEY", "REVISION", "VISITOR", "SESSION", "CREATED", "BYTES"]]
            for event in events {
                rows.append([
                    event.id, event.journey, "\(event.revision)", event.visitor, String(event.session.prefix(8)),
                    event.created.formatted(.iso8601), "\(event.body.count)",
                ])
            }
            Console.out(table(rows))
        }
        return .success
    }

    static func eventJSON(_ event: CaptureEvent) -> JSONValue {
        .object([
            "id": .string(event.id), "visitor": .string(event.visitor), "session": .string(event.session),
            "journey": .string(event.journey), "revision": .int(event.revision), "bundle": .string(event.bundle.description),
            "context": .object(event.context.mapValues(JSONValue.string)), "created": .string(event.created.formatted(.iso8601)),
            "bodyBytes": .int(Int64(event.body.count)), "body": .string(Data(event.body).base64EncodedString()),
            "assignment": event.assignment.map(JourneyReport.assignmentJSON) ?? .null,
        ])
    }

    static func deliveryJSON(_ delivery: CaptureDelivery) -> JSONValue {
        .object([
            "delivered": .int(Int64(delivery.delivered)), "remaining": .int(Int64(delivery.remaining)),
            "refused": .array(delivery.refused.map { .object(["id": .string($0.id), "reason": .string($0.reason.description)]) }),
            "error": delivery.error.map { JourneyReport.errorJSON($0) } ?? .null,
        ])
    }
}
