import LarderFormat

/// Direct versus prepared presentation (DESIGN.md Host; seed 000): content is loaded hidden
/// ahead of time only when both the renderer supports preparation and the bundle declares
/// ``Manifest/Capability/prepare`` and ``Manifest/Capability/visibility``
/// (``RendererGate/presentationModes``); otherwise the renderer loads it when it becomes
/// visible. Neither capability is needed to load a bundle (``RendererGate``).
///
/// A pure decision over values; ``JourneyHost`` performs it.
enum PresentationMode: Sendable, Equatable {
    /// Loaded hidden ahead, shown at once.
    case prepared
    /// Loaded when shown.
    case direct

    /// The mode for a bundle on a renderer.
    /// - Parameters:
    ///   - rendererSupportsPreparation: ``JourneyRenderer/supportsPreparation``.
    ///   - bundleCapabilities: the capabilities the bundle's manifest declares.
    static func of(rendererSupportsPreparation: Bool, bundleCapabilities: Set<Manifest.Capability>) -> PresentationMode {
        rendererSupportsPreparation && bundleCapabilities.isSuperset(of: RendererGate.presentationModes) ? .prepared : .direct
    }
}
