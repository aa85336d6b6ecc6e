import LarderCache
import LarderFetch
import LarderHost
import LarderTransport

/// The documented exit status of each library error, chosen by its code (never by its
/// message's words): the one table the commands end their failures by (``FailureJSON``).
extension ExitCode {
    /// A cache error's status (`journey` and `prefetch` open caches too).
    init(_ error: CacheError) {
        self =
            switch error.code {
            case .invalidBundle, .bundleDigestMismatch, .corruptObject, .malformedFontURL, .foreignEntry: .dataError
            case .bundleNotFound, .unknownFont, .resourceNotFound, .cacheNotFound: .noInput
            case .diskFull, .readOnly: .cannotCreate
            default: .failure
            }
    }

    /// A host error's status.
    init(_ error: HostError) {
        if error.transportError?.code == .diskFull || error.cacheError?.code == .diskFull || error.storageError?.code == .diskFull {
            self = .cannotCreate
            return
        }
        self =
            switch error.code {
            case .denied: .noPermission
            // A renderer that could not show the content (not ready in time, a missing file, a
            // script error): nothing to show, as the help says.
            case .unavailable, .backingOff, .deadlineExceeded, .incompatible, .renderer: .unavailable
            case .malformedDocument, .rejected: .dataError
            case .bundleNotFound: .noInput
            default: .failure
            }
    }

    /// A fetch's status.
    init(_ error: TransportError) {
        self =
            switch error.code {
            case .diskFull: .cannotCreate
            case .digestMismatch, .malformedDocument, .tooLarge, .unexpectedEncoding: .dataError
            case .unexpectedStatus where error.status == 404: .noInput
            case .redirectLoop, .redirectRefused, .unexpectedStatus: .unavailable
            case .connection, .timeout, .tooSlow, .busy: .temporaryFailure
            case .cache:
                switch error.cacheError?.code {
                case .invalidBundle?, .bundleDigestMismatch?: .dataError
                default: .failure
                }
            default: .failure
            }
    }

    /// The status of an error this table knows; nil for any other.
    init?(any error: any Error) {
        switch error {
        case let error as CacheError: self.init(error)
        case let error as HostError: self.init(error)
        case let error as TransportError: self.init(error)
        default: return nil
        }
    }
}
