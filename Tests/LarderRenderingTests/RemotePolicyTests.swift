import LarderHost
@testable import LarderRendering
import Testing

@Suite struct RemotePolicyTests {
    @Test func blocksEverythingByDefault() {
        #expect(!RemotePolicy.blockAll.allows("https://example.com/"))
        #expect(!RemotePolicy.blockAll.allows("http://127.0.0.1:8080/x"))
        #expect(RemotePolicy.blockAll.contentSecurityPolicy
            == "default-src larder: larder-font: data: blob: 'unsafe-inline' 'unsafe-eval'; worker-src larder:; form-action larder:")
        #expect(RemotePolicy.blockAll.workerPolicy
            == "default-src * larder: larder-font: data: blob: 'unsafe-inline' 'unsafe-eval'; form-action larder:")
    }

    @Test func allowsExactlyTheListedOrigins() throws {
        let policy = try RemotePolicy(allowing: ["https://api.example.com", "http://127.0.0.1:8080"])
        #expect(policy.allows("https://api.example.com/v1/x?y=1"))
        #expect(policy.allows("HTTPS://API.example.com/"))
        #expect(policy.allows("http://127.0.0.1:8080/"))
        #expect(!policy.allows("http://api.example.com/"))  // another scheme
        #expect(!policy.allows("https://api.example.com:444/"))  // another port
        #expect(!policy.allows("https://evil.example.com/"))
        #expect(!policy.allows("larder://x/y"))
        #expect(try RemotePolicy(allowing: ["HTTPS://API.Example.com"]).allowedOrigins == ["https://api.example.com"])
        #expect(policy.contentSecurityPolicy.contains("'unsafe-eval' https://api.example.com http://127.0.0.1:8080 wss://api.example.com ws://127.0.0.1:8080;"))
        #expect(policy.allows("wss://api.example.com/socket"))
        #expect(policy.allows("ws://127.0.0.1:8080/socket"))
        #expect(!policy.allows("ws://api.example.com/socket"))
    }

    @Test(arguments: ["https://api.example.com/", "https://api.example.com/v1", "ftp://x.example", "api.example.com", "https://", "https://user@api.example.com"])
    func refusesWhatIsNotAnOrigin(_ origin: String) {
        #expect(throws: HostError.self) { try RemotePolicy(allowing: [origin]) }
    }

    @Test func viewportsParse() {
        #expect(Viewport(parsing: "430x932") == Viewport(width: 430, height: 932))
        for bad in ["430", "x932", "430x", "0x10", "10x9000", "+1x2", "4 30x932", "430X932", "430x932x1"] {
            #expect(Viewport(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func scriptStringsAreQuoted() {
        #expect(PageScripts.quoted("a\"b\\c\n\u{2028}") == #""a\"b\\c\n\u2028""#)
        #expect(PageScripts.dispatch("larder:message", on: "window", detail: "{}")
            == #"window.dispatchEvent(new CustomEvent("larder:message", { detail: {} })); undefined"#)
    }
}
