import LarderFormat
import LarderHost
import Testing

/// The renderer gate as a pure rule: a bundle's declared protocol and capabilities against a
/// renderer's.
@Suite("Renderer gate")
struct RendererGateTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bundle: Manifest.Renderer
        var rendererProtocol: Int
        var capabilities: Set<Manifest.Capability>
        /// Part of the reason, nil when it fits.
        var refusal: String?
        var testDescription: String { name }
    }

    @Test(
        "Newer protocols are refused; presentation-mode capabilities never are",
        arguments: [
            Case(name: "same protocol", bundle: .init(protocolVersion: 1), rendererProtocol: 1, capabilities: [.prepare, .visibility], refusal: nil),
            Case(name: "older bundle", bundle: .init(protocolVersion: 1), rendererProtocol: 3, capabilities: [.prepare, .visibility], refusal: nil),
            Case(name: "newer bundle", bundle: .init(protocolVersion: 2), rendererProtocol: 1, capabilities: [.prepare, .visibility],
                 refusal: "needs renderer protocol 2 and the renderer implements 1"),
            Case(name: "much newer bundle", bundle: .init(protocolVersion: 1000), rendererProtocol: 999, capabilities: [],
                 refusal: "needs renderer protocol 1000"),
            Case(name: "renderer without prepare: direct presentation, not refused", bundle: .init(protocolVersion: 1),
                 rendererProtocol: 1, capabilities: [], refusal: nil),
            Case(name: "bundle without capabilities", bundle: .init(protocolVersion: 1, capabilities: []), rendererProtocol: 1,
                 capabilities: [.prepare], refusal: nil),
        ])
    func gate(_ rule: Case) {
        let reason = RendererGate.mismatch(rule.bundle, protocolVersion: rule.rendererProtocol, capabilities: rule.capabilities)
        if let refusal = rule.refusal {
            #expect(reason?.contains(refusal) == true, "\(reason ?? "fits")")
        } else {
            #expect(reason == nil)
        }
    }
}
