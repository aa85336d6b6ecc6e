import LarderFormat
import Testing
@testable import LarderHost

/// ``PresentationMode`` as a table: prepared presentation needs the renderer's support and
/// both presentation capabilities in the bundle (DESIGN.md Host; seed 000).
@Suite("Presentation mode")
struct PresentationModeTests {
    @Test("Prepared only when the renderer and the bundle both allow it; direct otherwise", arguments: [
        (true, [.prepare, .visibility], PresentationMode.prepared),
        (false, [.prepare, .visibility], .direct),
        (true, [.prepare], .direct),
        (true, [.visibility], .direct),
        (true, [], .direct),
        (false, [], .direct),
    ] as [(Bool, Set<Manifest.Capability>, PresentationMode)])
    func mode(_ supportsPreparation: Bool, _ capabilities: Set<Manifest.Capability>, _ expected: PresentationMode) {
        #expect(PresentationMode.of(rendererSupportsPreparation: supportsPreparation, bundleCapabilities: capabilities) == expected)
    }
}
