import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderS3

enum PublishCommand {
    static let spec = CommandSpec(
        name: "publish",
        overview: "Publish bundle archives to a static origin folder or an S3 bucket, and point a journey at one.",
        usage: """
            larder publish <archive>... --origin <folder> [--journey <id> [--key <publishable-key>] [--refresh <seconds>] [--rollout <percent>] [--sign <private-key> [--expires-in <duration>]] [--trigger <event>]... [--reentry <policy>]] [--json]
                   larder publish --origin <folder> --journey <id> --rollback [--to <revision>] [--sign <private-key> [--expires-in <duration>]] [--json]
                   larder publish --from <folder> --origin s3://<bucket>[/<prefix>] [--endpoint <url>] [--region <region>] [--virtual-host] [--acl public-read] [--json]
            """,
        arguments: [("<archive>...", "Archives written by 'larder pack'; each is verified entry by entry.")],
        options: [Options.origin.spec] + BucketPublish.Options.specs + [
            Options.journey.spec,
            Options.key.spec,
            Options.refresh.spec,
            Options.sign.spec,
            Options.expires.spec,
            Options.rollout.spec,
            OptionSpec(
                names: ["--rollback"], value: nil,
                help: "Publish a new revision pointing at an earlier bundle from the journey's history (no archive needed)."),
            Options.rollbackTarget.spec,
            PublishTriggers.trigger.spec,
            PublishTriggers.reentry.spec,
            OptionSpec(names: ["--json"], value: nil, help: "Print the report as JSON."),
        ],
        discussion: """
            Writes objects/<hex>, bundles/<hex>.tar.gz, bundles/<hex>/manifest.json,
            journeys/<id>.json and access/{keys,grants}.map, each through a temporary file and a
            rename; content already there is left alone, so publishing again changes nothing.
            Every new revision is appended to journeys/<id>.history.json ('larder journey
            history'; the newest 1000 revisions and any older one a rollback still needs), which
            --rollback chooses from: devices holding a newer revision take the rolled-back one
            as an update, and signed revisions only ever go up.

            --trigger writes triggers.json, which events present which journey and how often
            (--reentry), for 'JourneyTriggers.trigger' in apps and 'larder journey trigger': the
            journey's triggers become the given events, in a new revision of the document (an
            event that presented another journey moves to this one), signed with --sign like
            the journey's. Folder origins only for now.

            A signed document carries the key id, an Ed25519 signature of its canonical JSON
            and an expiry date; apps that trust the key ('larder journey --trust') refuse
            anything else.

            With --origin s3://<bucket>/<prefix> the same layout goes to a bucket of any
            S3-compatible service, signed with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
            AWS_SESSION_TOKEN (or a profile of ~/.aws/credentials, AWS_PROFILE), in an order a
            device can never see half of: a bundle's objects, their gzip copies, its archive,
            then its manifest, each only where absent (If-None-Match: *); then the history and
            the document, each only if unchanged since read (If-Match), read again and retried
            when another publisher came first. Of a bundle whose manifest is in the bucket,
            only what the bucket lost since is sent again ('repaired'). A PUT whose ETag is not
            the MD5 of the body sent is sent again, then refused. --from sends only regular
            files that are what their names say, all checked before the first is sent. There
            are no access maps in a bucket: --key is refused (Docs/Buckets.md).
            With --json, a failure prints {"error": {"code", "message"}, "status"} too.

            EXIT STATUS: 0 published, 64 usage error, 65 an archive is invalid, a file of the
            origin (or of the --from folder) is damaged or not what its name says, or there is
            nothing (whole) to roll back to, 66 no such archive or key file (or it cannot be
            read), 69 the bucket's service refused or failed (wrong credentials, no such bucket,
            not an S3 service, errors after every retry, ETags that are not what was sent), 73
            the origin could not be written, 74 the bucket's endpoint cannot be reached or the
            connection kept failing.
            """)

    static func run(_ arguments: [String]) -> ExitCode {
        // With --json, a failure prints one JSON object on stdout too (PublishFailureJSON).
        let json = arguments.contains("--json")
        func usage(_ error: UsageError) -> ExitCode { PublishFailureJSON.usage(error, json: json) }
        func failed(_ status: ExitCode, _ code: String, _ message: String) -> ExitCode {
            PublishFailureJSON.failed(status, code: code, message: message, json: json)
        }
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 0...10_000) } catch {
            return usage(error)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        let rollback = parsed.flag("--rollback")
        let bucketOptions: BucketPublish.Options
        let journeyID: String?
        let key: String?
        do throws(UsageError) {
            bucketOptions = try BucketPublish.Options(parsed)
            journeyID = try parsed[Options.journey]
            key = try parsed[Options.key]
        } catch {
            return usage(error)
        }
        if bucketOptions.from != nil {
            guard parsed.positionals.isEmpty, !rollback, journeyID == nil else {
                return usage(UsageError(message: "--from takes no archive, --journey or --rollback", command: spec))
            }
        } else if rollback != parsed.positionals.isEmpty {
            return usage(
                UsageError(message: rollback ? "--rollback takes no archive" : "Missing expected argument '<archive>...'", command: spec))
        }
        if parsed.isGiven(Options.rollbackTarget) && !rollback {
            return usage(UsageError(message: "--to goes with --rollback", command: spec))
        }
        if rollback && (journeyID == nil || key != nil) {
            return usage(UsageError(message: "--rollback needs --journey and takes no --key", command: spec))
        }
        let rollbackTarget: Int64?
        let origin: String
        let signKey: String?
        do throws(UsageError) {
            rollbackTarget = try parsed[Options.rollbackTarget]
            guard let folder = try parsed[Options.origin] else { throw UsageError(message: "Missing '--origin <folder>'", command: spec) }
            origin = folder
            signKey = try parsed[Options.sign]
        } catch {
            return usage(error)
        }
        let bucket = S3Configuration.isS3Origin(origin)
        if !bucket, let option = bucketOptions.firstGiven {
            return usage(UsageError(message: "\(option) goes with an s3:// origin", command: spec))
        }
        if bucket, key != nil {
            return failed(.usage, "usage", "\(origin): \(KeysCommand.s3Refusal)")
        }
        var journey: JourneyPublication?
        if let id = journeyID {
            let refresh: Int64
            do throws(UsageError) { refresh = try parsed[Options.refresh] } catch { return usage(error) }
            journey = JourneyPublication(id: id, key: key, refresh: refresh)
            do throws(UsageError) { journey?.rollout = try parsed[Options.rollout] } catch { return usage(error) }
            if rollback, journey?.rollout != nil { return usage(UsageError(message: Options.rolloutRefusal, command: spec)) }
            if let path = signKey {
                let pem: [UInt8]
                do { pem = try ReadableFile(path: path).readAll(limit: 64 << 10) } catch {
                    return failed(.noInput, "no-input", "\(path): no such key file, or it cannot be read: \(error.message)")
                }
                do { journey?.signingKey = try SigningKey(pem: pem) } catch {
                    return failed(.dataError, error.code.rawValue, "\(path): \(error.message)")
                }
                do throws(UsageError) {
                    let validity = try parsed[Options.expires] ?? .seconds(7 * 86_400)
                    journey?.validity = max(1, validity.components.seconds)
                } catch {
                    return usage(error)
                }
            } else if parsed.isGiven(Options.expires) {
                return usage(UsageError(message: "--expires-in goes with --sign", command: spec))
            }
        } else if [Options.key.spec, Options.refresh.spec, Options.sign.spec, Options.expires.spec, Options.rollout.spec].contains(where: { parsed.isGiven($0) }) {
            return usage(UsageError(message: "--key, --refresh, --sign and --rollout go with --journey", command: spec))
        }
        let triggers: TriggerPublication?
        do throws(UsageError) {
            if rollback, try !parsed[all: PublishTriggers.trigger].isEmpty {
                throw UsageError(message: "--trigger goes with a publish, not with --rollback", command: spec)
            }
            triggers = try PublishTriggers.parse(
                parsed, journey: journey?.id, signingKey: journey?.signingKey, validity: journey?.validity ?? 7 * 86_400, spec: spec)
        } catch {
            return usage(error)
        }
        if triggers != nil, bucket {
            return usage(UsageError(message: "--trigger goes with a folder origin (publish to a folder, then serve triggers.json from it)", command: spec))
        }
        for archive in parsed.positionals {
            do { _ = try ReadableFile(path: archive) } catch {
                return failed(.noInput, "no-input", FileManager.default.fileExists(atPath: archive) ? "\(error)" : "\(archive): no such archive")
            }
        }
        let report: PublishReport
        var triggersReport: TriggerPublishReport?
        // On a terminal only, and never with --json: cleared before anything else is printed.
        let bar = ProgressBar(label: "publishing", quiet: json, stdoutToo: false)
        let progress: @Sendable (PublishProgress) -> Void = { bar.update(bytes: $0.bytes, of: $0.totalBytes) }
        do {
            defer { bar.finish() }
            if bucket {
                report = try BucketPublish.run(parsed, options: bucketOptions, origin: origin, journey: journey, rollback: rollback, to: rollbackTarget, progress: progress)
            } else if rollback, let journey {
                report = try PackFailure.reporting { () throws(PublishError) in try OriginPublisher.rollback(journey, to: rollbackTarget, origin: origin) }
            } else {
                report = try PackFailure.reporting { () throws(PublishError) in try OriginPublisher.publish(archives: parsed.positionals, to: origin, journey: journey, progress: progress) }
            }
            // After the journey's document: a trigger never names a journey not yet published.
            if let triggers { triggersReport = try PublishTriggers.publish(triggers, origin: origin) }
        } catch {
            if error.errors.contains(where: { $0.code == .invalidIdentifier }) {
                return usage(UsageError(message: error.errors[0].message, command: spec))
            }
            let status: ExitCode =
                error.errors.contains(where: { $0.code == .originUnavailable }) ? .unavailable
                : error.errors.contains(where: { $0.code == .originTransfer }) ? .ioError
                : error.errors.contains(where: { $0.code == .outputFailed }) ? .cannotCreate : .dataError
            return PublishFailureJSON.failed(status, error, json: json)
        }
        if parsed.flag("--json") {
            Console.json(.object([
                "bundles": .array(report.bundles.map {
                    .object(["name": .string($0.name), "digest": .string($0.digest.description), "objectsWritten": .int(Int64($0.objectsWritten))])
                }),
                "journey": report.journey.map { document in
                    .object([
                        "journey": .string(document.journey), "revision": .int(document.revision),
                        "bundle": .string(document.bundle.description), "refresh": .int(document.refresh),
                        "expires": document.expires.map { .string($0) } ?? .null,
                        "signer": document.signature.map { .string($0.keyID) } ?? .null,
                        "rollout": document.rollout.map { .object(["percent": .int(Int64($0.percent)), "previous": .string($0.previous.description)]) } ?? .null,
                    ])
                } ?? .null,
                "changed": .array(report.changed.map { .string($0) } + (triggersReport?.changed == true ? [.string(TriggerDocument.path)] : [])),
                "repaired": .array(report.repaired.map { .string($0) }),
                "triggers": triggersReport.map(PublishTriggers.json) ?? .null,
            ]))
        } else {
            for bundle in report.bundles {
                Console.out("published \(shown(bundle.name)) \(bundle.digest): \(bundle.objectsWritten) new objects")
            }
            if let document = report.journey {
                Console.out(
                    "journey \(shown(document.journey)) revision \(document.revision) -> \(document.bundle) (refresh \(document.refresh) s)"
                        + (document.rollout.map { ", to \($0.percent)% (the rest keep \($0.previous))" } ?? "")
                        + (document.signature.map { ", signed by \(shown($0.keyID)) until \(shown(document.expires ?? "?"))" } ?? ""))
            }
            if !report.repaired.isEmpty {
                Console.out("repaired \(report.repaired.count) file\(report.repaired.count == 1 ? "" : "s") the origin had lost or held damaged: \(report.repaired.map(shown).joined(separator: ", "))")
            }
            if let triggersReport, let journey { Console.out(PublishTriggers.line(triggersReport, journey: journey.id)) }
            if report.changed.isEmpty && triggersReport?.changed != true {
                Console.out(bucket ? "nothing changed in \(shown(origin)): every file was there" : "nothing changed on disk")
            }
        }
        return .success
    }
}
