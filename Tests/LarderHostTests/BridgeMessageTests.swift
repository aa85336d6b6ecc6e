import Foundation
import LarderFormat
import LarderHost
import Testing

@Suite struct BridgeMessageTests {
    /// Every valid kind, in canonical form, and the message it is.
    static let valid: [(String, BridgeMessage)] = [
        (#"{"type":"dismiss"}"#, .dismiss),
        (#"{"screen":"screen-2.html","type":"navigate"}"#, .navigate(screen: "screen-2.html")),
        (#"{"type":"open-link","url":"https://example.com/terms?lang=en#top"}"#, .openLink(URL(string: "https://example.com/terms?lang=en#top")!)),
        (#"{"type":"open-link","url":"http://example.com"}"#, .openLink(URL(string: "http://example.com")!)),
        (#"{"type":"open-link","url":"mailto:help@example.com"}"#, .openLink(URL(string: "mailto:help@example.com")!)),
        (#"{"product":"com.example.sprout.plus.annual","type":"purchase"}"#, .purchase(product: "com.example.sprout.plus.annual")),
        (#"{"type":"restore"}"#, .restorePurchases),
        (
            #"{"name":"sign-in","payload":{"from":"welcome","n":[1,2.5,true,null]},"type":"custom"}"#,
            .custom(
                name: "sign-in",
                payload: .object(["from": .string("welcome"), "n": .array([.int(1), .double(2.5), .bool(true), .null])]))
        ),
        (#"{"name":"ping","payload":null,"type":"custom"}"#, .custom(name: "ping", payload: .null)),
        (#"{"body":"{\"answer\":42}","event":"evt-1","type":"capture"}"#, .capture(event: "evt-1", body: Array(#"{"answer":42}"#.utf8))),
        (#"{"body":"","event":"evt-2","type":"capture"}"#, .capture(event: "evt-2", body: [])),
    ]

    @Test(arguments: valid)
    func everyValidKindRoundTrips(_ json: String, _ message: BridgeMessage) throws {
        #expect(try BridgeMessage(json: Array(json.utf8)) == message)
        #expect(String(decoding: message.json, as: UTF8.self) == json)
        #expect(try BridgeMessage(json: message.json) == message)
    }

    @Test func whitespaceAndKeyOrderDoNotMatter() throws {
        let json = " {\n \"type\" : \"navigate\" ,\t\"screen\" : \"plans\" } "
        let message = try BridgeMessage(json: Array(json.utf8))
        #expect(message == .navigate(screen: "plans"))
        #expect(message.json == Array(#"{"screen":"plans","type":"navigate"}"#.utf8))
    }

    @Test(arguments: [
        "plain ASCII",
        "héllo wörld — ünïcode ✓ 🌱",
        "e\u{301} stays decomposed, not NFC",
        "line\nbreak\ttab \"quoted\" back\\slash \u{1}",
        "日本語のテキスト",
    ])
    func captureBodiesKeepTheirBytes(_ body: String) throws {
        let bytes = Array(body.utf8)
        let json = JSONValue.object(["type": .string("capture"), "event": .string("e1"), "body": .string(body)]).canonicalBytes
        let message = try BridgeMessage(json: json)
        guard case .capture(let event, let parsed) = message else {
            Issue.record("not a capture: \(message)")
            return
        }
        #expect(event == "e1")
        #expect(parsed == bytes)
        #expect(message.json == json)
        #expect(try BridgeMessage(json: message.json) == message)
    }

    @Test func escapedBodiesAreDecodedOnceAndNotNormalised() throws {
        let message = try BridgeMessage(json: Array(#"{"type":"capture","event":"e1","body":"caf\u0065\u0301 \u00e9 \ud83c\udf31"}"#.utf8))
        #expect(message == .capture(event: "e1", body: [0x63, 0x61, 0x66, 0x65, 0xCC, 0x81, 0x20, 0xC3, 0xA9, 0x20, 0xF0, 0x9F, 0x8C, 0xB1]))
    }

    /// Malformed messages and the field their error must name.
    static let malformed: [(String, String)] = [
        ("not json", "not JSON"),
        (#"{"type":"dismiss"} trailing"#, "not JSON"),
        (#"{"type":"dismiss","type":"restore"}"#, "not JSON"),
        ("[\"dismiss\"]", "JSON object"),
        (#""dismiss""#, "JSON object"),
        ("{}", "'type'"),
        (#"{"screen":"a"}"#, "'type'"),
        (#"{"type":1}"#, "'type'"),
        (#"{"type":null}"#, "'type'"),
        (#"{"type":"close"}"#, "'type'"),
        (#"{"type":"Dismiss"}"#, "'type'"),
        (#"{"type":"dismiss","reason":"skipped"}"#, "'reason'"),
        (#"{"type":"restore","product":"x"}"#, "'product'"),
        (#"{"type":"navigate"}"#, "'screen'"),
        (#"{"type":"navigate","screen":""}"#, "'screen'"),
        (#"{"type":"navigate","screen":2}"#, "'screen'"),
        (#"{"type":"navigate","screen":"a","from":"b"}"#, "'from'"),
        (#"{"type":"open-link"}"#, "'url'"),
        (#"{"type":"open-link","url":""}"#, "'url'"),
        (#"{"type":"open-link","url":["https://example.com"]}"#, "'url'"),
        (#"{"type":"open-link","url":"javascript:alert(1)"}"#, "'url'"),
        (#"{"type":"open-link","url":"file:///etc/passwd"}"#, "'url'"),
        (#"{"type":"open-link","url":"/terms.html"}"#, "'url'"),
        (#"{"type":"open-link","url":"terms.html"}"#, "'url'"),
        (#"{"type":"open-link","url":"//example.com/terms"}"#, "'url'"),
        (#"{"type":"open-link","url":"https://"}"#, "'url'"),
        (#"{"type":"open-link","url":"https:example.com"}"#, "'url'"),
        (#"{"type":"open-link","url":"https://exa mple.com"}"#, "'url'"),
        (#"{"type":"open-link","url":"mailto:"}"#, "'url'"),
        (#"{"type":"open-link","link":"terms"}"#, "'link'"),
        (#"{"type":"purchase"}"#, "'product'"),
        (#"{"type":"purchase","product":""}"#, "'product'"),
        (#"{"type":"purchase","product":{"id":"x"}}"#, "'product'"),
        (#"{"type":"purchase","product":"x","plan":"annual"}"#, "'plan'"),
        (#"{"type":"custom","payload":{}}"#, "'name'"),
        (#"{"type":"custom","name":"","payload":{}}"#, "'name'"),
        (#"{"type":"custom","name":true,"payload":{}}"#, "'name'"),
        (#"{"type":"custom","name":"sign-in"}"#, "'payload'"),
        (#"{"type":"custom","name":"sign-in","payload":1,"from":"welcome"}"#, "'from'"),
        (#"{"type":"capture","body":"x"}"#, "'event'"),
        (#"{"type":"capture","event":"","body":"x"}"#, "'event'"),
        (#"{"type":"capture","event":7,"body":"x"}"#, "'event'"),
        (#"{"type":"capture","event":"e\n1","body":"x"}"#, "'event'"),
        (#"{"type":"capture","event":"e1"}"#, "'body'"),
        (#"{"type":"capture","event":"e1","body":{"answer":42}}"#, "'body'"),
        (#"{"type":"capture","event":"e1","body":"x","session":"s"}"#, "'session'"),
    ]

    @Test(arguments: malformed)
    func malformedMessagesGetATypedErrorNamingTheField(_ json: String, _ named: String) {
        do {
            let message = try BridgeMessage(json: Array(json.utf8))
            Issue.record("accepted \(json) as \(message)")
        } catch {
            #expect(error.code == .malformedDocument)
            #expect(error.message.contains(named), "\(error.message)")
            #expect(!error.isRetryable)
        }
    }

    @Test func invalidUTF8IsNotJSON() {
        #expect(throws: HostError.self) { try BridgeMessage(json: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) }
    }
}
