import LarderFormat
import LarderSystem

/// What readers refuse, pack refuses: the readers' limits (``ArchiveReader/Limits``) checked
/// before an archive is written, and its compression ratio while it is written.
extension Packer {
    /// - Throws: ``PackFailure`` with ``PackError/Code/limitExceeded`` naming the limit.
    static func admit(_ verified: VerifiedManifest, limits: ArchiveReader.Limits) throws(PackFailure) {
        do throws(FormatError) { try limits.admit(verified) } catch {
            throw PackFailure([PackError(.limitExceeded, error.message)])
        }
    }

    /// The failure for a gzip member the ratio limit refused, naming the file with the most
    /// bytes in it.
    /// - Parameters:
    ///   - input: the member's bytes of the tar stream.
    ///   - starts: where each file starts in the tar stream, in order; its bytes end where the
    ///     next one starts (the last at `end`).
    static func ratioFailure(
        _ error: FormatError, input: Range<UInt64>, starts: [(offset: UInt64, path: String)], end: UInt64
    ) -> PackFailure {
        var most: (bytes: UInt64, path: String)?
        for (index, start) in starts.enumerated() {
            let stop = min(index + 1 < starts.count ? starts[index + 1].offset : end, input.upperBound)
            let bytes = stop - min(max(start.offset, input.lowerBound), stop)
            if bytes > (most?.bytes ?? 0) { most = (bytes, start.path) }
        }
        let advice = most == nil ? "" : ": compress this file yourself, or leave it out with \"exclude\""
        return PackFailure([PackError(.limitExceeded, error.message + advice, path: most?.path)])
    }
}

extension Packer {
    /// Creates the output folder and the folders above it.
    /// - Throws: ``PackFailure`` with ``PackError/Code/outputFailed``: the output path is under
    ///   a file, or a folder could not be made (naming which, and why).
    static func createOutputFolder(_ folder: String) throws(PackFailure) {
        do { try Folder.createPath(folder) } catch {
            let why =
                error.errno == .notAFolder
                ? "the output path is under a file: \(error.path) is not a folder"
                : "cannot create the output folder \(error.path): \(error.errno)"
            throw PackFailure([PackError(.outputFailed, why, path: folder)])
        }
    }
}
