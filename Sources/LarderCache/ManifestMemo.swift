import LarderFormat
import LarderSystem

/// Manifests this process decoded from the index, by bundle digest, so that preparing a
/// journey (its renderer gate, then its lease) decodes a manifest once.
///
/// A bundle's digest names its manifest's bytes, so an entry never goes stale: a bundle that
/// was evicted and installed again has the same manifest. Whether the bundle is (still) in the
/// cache is always asked of the index; only the decoding is kept. The memo holds manifests of
/// at most ``fileBudget`` files in all and is emptied when a new one does not fit, or under
/// memory pressure.
final class ManifestMemo: Sendable {
    /// The number of file entries the kept manifests may list together.
    static let fileBudget = 16_384

    private struct State {
        var manifests: [Digest: Manifest] = [:]
        var files = 0
    }

    private let state = Locked(State())

    /// The kept manifest of `digest`, if any.
    func kept(_ digest: Digest) -> Manifest? { state.withLock { $0.manifests[digest] } }

    /// Keeps `manifest`, just decoded, as the one of `digest`; returns it.
    @discardableResult
    func keep(_ manifest: Manifest?, for digest: Digest) -> Manifest? {
        guard let manifest, case let files = manifest.files.count, files <= Self.fileBudget else { return manifest }
        state.withLock { state in
            if state.files + files > Self.fileBudget { state = State() }
            if state.manifests.updateValue(manifest, forKey: digest) == nil { state.files += files }
        }
        return manifest
    }

    /// How many manifests are kept.
    var count: Int { state.withLock { $0.manifests.count } }

    /// Forgets every kept manifest.
    func removeAll() { state.withLock { $0 = State() } }
}
