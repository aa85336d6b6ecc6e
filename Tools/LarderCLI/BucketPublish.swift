import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderS3

/// `larder publish … --origin s3://<bucket>/<prefix>`: the bucket's configuration from the
/// options and the environment, a check of the bucket before anything is sent, then the
/// publish, rollback or folder upload. Every error that leaves has the secrets taken out
/// (the secret key, the session token, a password in `--endpoint`), whatever a service echoed
/// and wherever it was put into a message.
enum BucketPublish {
    static func run(
        _ parsed: ParsedArguments, options: Options, origin: String, journey: JourneyPublication?, rollback: Bool, to revision: Int64?,
        progress: (@Sendable (PublishProgress) -> Void)? = nil
    ) throws(PackFailure) -> PublishReport
    {
        let environment = ProcessInfo.processInfo.environment
        let region = options.region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        let target: S3Target
        do throws(PublishError) {
            let configuration = try S3Configuration(
                origin: origin, endpoint: options.endpoint, region: region, virtualHostAddressing: options.virtualHost,
                credentials: try S3Credentials.from(environment: environment), acl: options.acl)
            target = S3Target(configuration: configuration)
        } catch {
            // A setup that cannot be used: no request was made.
            throw PackFailure([PackError(.originUnavailable, error.description)])
        }
        do {
            return try publish(parsed, from: options.from, to: target, journey: journey, rollback: rollback, to: revision, progress: progress)
        } catch {
            throw PackFailure(error.errors.map { problem in
                var problem = problem
                problem.message = target.configuration.redact(problem.message)
                problem.path = problem.path.map(target.configuration.redact)
                return problem
            })
        }
    }

    private static func publish(
        _ parsed: ParsedArguments, from folder: String?, to target: S3Target, journey: JourneyPublication?, rollback: Bool, to revision: Int64?,
        progress: (@Sendable (PublishProgress) -> Void)?
    ) throws(PackFailure) -> PublishReport
    {
        // Refused setups (credentials, no such bucket, not S3) exit 69, an endpoint that
        // cannot be reached 74, as for any later request.
        do throws(PublishError) { try target.checkBucket() } catch { throw PackFailure(reporting: error) }
        if let folder {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/objects", isDirectory: &isFolder), isFolder.boolValue else {
                throw PackFailure([PackError(.invalidConfiguration, "\(folder) is not an origin folder (it has no objects/)", path: folder)])
            }
            return try PackFailure.reporting { () throws(PublishError) in try OriginPublisher.upload(folder: folder, to: target, progress: progress) }
        }
        if rollback, let journey {
            do throws(PublishError) { return try OriginPublisher.rollback(journey, to: revision, target: target) } catch {
                throw PackFailure(reporting: error)
            }
        }
        let staging = FileManager.default.temporaryDirectory.appendingPathComponent("larder-publish-\(UUID().uuidString)").path
        defer {
            if FileManager.default.fileExists(atPath: staging) {
                do { try FileManager.default.removeItem(atPath: staging) } catch { Console.error("warning: could not remove \(shown(staging)): \(error)") }
            }
        }
        return try PackFailure.reporting { () throws(PublishError) in
            try OriginPublisher.publish(archives: parsed.positionals, to: target, journey: journey, staging: staging, progress: progress)
        }
    }
}
