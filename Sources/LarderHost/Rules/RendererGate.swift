import LarderFormat

/// Whether a renderer can load a bundle, by the renderer protocol and capabilities the
/// bundle's manifest declares: content is only loaded by a renderer that implements what it
/// was built for.
///
/// A bundle built for a newer protocol than the renderer implements is never loaded.
/// ``Manifest/Capability/prepare`` and ``Manifest/Capability/visibility`` choose how content is
/// presented (hidden preparation or direct presentation), so a renderer without them still
/// loads the bundle, directly; ``Manifest/Capability/ready`` only makes a renderer that has it
/// wait for the page's word, so a renderer without it loads the bundle too (ready when its
/// document and fonts are); any other capability the bundle declares is required.
package enum RendererGate {
    /// Capabilities that only choose the presentation mode.
    package static let presentationModes: Set<Manifest.Capability> = [.prepare, .visibility]
    /// Capabilities a renderer may lack and still load the bundle.
    package static let optional: Set<Manifest.Capability> = presentationModes.union([.ready])

    /// Why `renderer` cannot load content built for `target`; nil when it can.
    package static func mismatch(_ target: Manifest.Renderer, protocolVersion: Int, capabilities: Set<Manifest.Capability>) -> String? {
        if target.protocolVersion > protocolVersion {
            return "it needs renderer protocol \(target.protocolVersion) and the renderer implements \(protocolVersion)"
        }
        let missing = target.capabilities.subtracting(optional).subtracting(capabilities)
        if !missing.isEmpty {
            return "it needs the renderer capabilities \(missing.sorted().map(\.rawValue).joined(separator: ", ")), which the renderer lacks"
        }
        return nil
    }
}
