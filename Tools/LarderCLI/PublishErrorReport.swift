import LarderPack
import LarderPublish

/// A publish's error as `larder publish` reports every failure: the packer's `PackError`, with
/// the same code, message, path and cause (``PublishError/reported`` keeps the codes the
/// command has always reported), so messages, exit statuses and `--json` are a pack's.
extension PackError {
    init(reporting error: PublishError) {
        let reported = error.reported
        self.init(Code(reported.code.rawValue), reported.message, path: reported.path, cause: reported.cause)
    }
}

extension PackFailure {
    init(reporting error: PublishError) { self.init([PackError(reporting: error)]) }

    /// Runs a publish, its error as a ``PackFailure`` of one error.
    static func reporting<T>(_ body: () throws(PublishError) -> T) throws(PackFailure) -> T {
        do { return try body() } catch { throw PackFailure(reporting: error) }
    }
}
