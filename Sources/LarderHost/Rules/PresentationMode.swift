import LarderFormat

/// Direct versus prepared presentation: content is loaded hidden
/// ahead of time only when both the renderer supports preparation and the bundle declares
/// ``Manifest/Capability/prepare`` and ``Manifest/Capability/visibility``
/// (``RendererGate/presentationModes``); otherwise the renderer loads it when it becomes
/// visible. Neither capability is needed to load a bundle (``RendererGate``).
///
/// The preload switch (``JourneyConfiguration/preload``, or one presentation's) turns prepared
/// presentation off: the content loads only when shown.
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

    /// The mode of one presentation (a presentation's own preload switch overrides the
    /// configured default): what the presentation asked for, else what the preparation chose
    /// (``JourneyConfiguration/preload`` and ``of(rendererSupportsPreparation:bundleCapabilities:)``).
    /// - Parameters:
    ///   - prepared: the prepared content is presented prepared (loaded hidden ahead).
    ///   - asked: the presentation's preload switch; nil when it has none.
    ///   - capable: the renderer and the bundle support prepared presentation.
    static func forPresentation(prepared: Bool, asked: Bool?, capable: Bool) -> PresentationMode {
        guard let asked else { return prepared ? .prepared : .direct }
        return asked && capable ? .prepared : .direct
    }
}
