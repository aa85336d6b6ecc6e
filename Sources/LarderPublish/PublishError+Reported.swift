import LarderFormat

extension PublishError {
    /// The error `larder publish` reports for this one, by the codes it has always reported:
    /// the target's refusals as ``PublishError/Code/originUnavailable`` or
    /// ``PublishError/Code/originTransfer``, a source that is not what was checked as
    /// ``PublishError/Code/invalidSource``, local and format failures as a folder's publish
    /// reports them (``PublishError/Code/outputFailed``,
    /// ``PublishError/Code/invalidConfiguration``). An error already reported is itself.
    public var reported: PublishError {
        switch code {
        case .outputFailed, .invalidConfiguration, .originUnavailable, .originTransfer, .invalidSource:
            return self
        case .credentials, .noSuchBucket, .notObjectStore, .unavailable, .contended, .unexpected, .damaged, .unstableValidator, .integrity:
            return PublishError(.originUnavailable, description)
        case .connection:
            return PublishError(.originTransfer, description)
        case .sourceMismatch:
            return PublishError(.invalidSource, message, path: path, cause: cause)
        case .invalidIdentifier:
            return PublishError(.invalidIdentifier, message, path: path, cause: cause)
        default:
            let error = formatError
            return PublishError(error.code == .io || error.code == .noSpace ? .outputFailed : .invalidConfiguration, error.detail, path: error.path, cause: error)
        }
    }

    /// The format error this stands for: its cause, or an I/O error with its message.
    var formatError: FormatError { cause ?? FormatError(.io, message, path: path) }
}
