import Foundation
import LarderFormat
import LarderHost
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// `window.webkit.messageHandlers.larder.postMessage(...)` reaches the host as typed
    /// messages; malformed ones are refused.
    @Suite struct Bridge {
        @Test func malformedMessagesAreRefusedAndTheRendererKeepsWorking() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installSample("onboarding")
            let (renderer, inbox) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)

            let outcomes = try await renderer.callAsyncFunction("""
                const post = (message) => window.webkit.messageHandlers.larder.postMessage(message)
                  .then(() => "accepted", (error) => "refused: " + (error && error.message || error));
                return [await post("not an object"), await post({ type: "teleport" }), await post({ type: "navigate" }),
                        await post({ type: "dismiss", extra: 1 }), await post({ type: "open-link", url: "javascript:alert(1)" }),
                        await post(undefined), await post([1, 2]), await post({ type: "restore" })];
                """)

            guard case .array(let answers) = outcomes, answers.count == 8 else { Issue.record("\(outcomes)"); return }
            for answer in answers.prefix(7) {
                guard case .string(let text) = answer else { Issue.record("\(answer)"); continue }
                #expect(text.hasPrefix("refused: "), "\(text)")
            }
            #expect(answers[1] == .string("refused: field 'type' names an unknown bridge message type 'teleport'"))
            #expect(answers[7] == .string("accepted"))
            let refusals = await renderer.refusals
            #expect(refusals.count == 7)
            #expect(refusals.allSatisfy { $0.code == .malformedDocument })
            #expect(inbox.received == [.restorePurchases])
            // Still working: shown, told, reset.
            try await renderer.show(session("s1", bundle))
            try await renderer.post(.object(["busy": .bool(true)]))
            try await renderer.reset()
            #expect(await renderer.state == .loaded(visible: false, document: "index.html"))
            await renderer.stop()
        }

        @Test func hostMessagesReachThePage() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installSample("paywall")
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            // The paywall listens itself: a purchase in flight disables its button.
            try await renderer.post(.object(["busy": .bool(true)]))
            #expect(try await renderer.evaluate("document.querySelector('.purchase').disabled") == .bool(true))
            try await renderer.post(.object(["busy": .bool(false)]))
            #expect(try await renderer.evaluate("document.querySelector('.purchase').disabled") == .bool(false))
            await renderer.stop()
        }

        /// What clicking each control of a sample sends, in order.
        static let actions: [(sample: String, click: String, expected: [Expected])] = [
            ("onboarding", #"[data-name="sign-in"]"#, [.capture(#"{"screen":"index.html","answer":"sign-in"}"#), .message(.custom(name: "sign-in", payload: .object(["screen": .string("index.html")])))]),
            ("onboarding", ".skip", [.capture(#"{"screen":"index.html","answer":"dismissed","reason":"skipped"}"#), .message(.dismiss)]),
            ("onboarding", #"a[href="screen-2.html"]"#, [.message(.navigate(screen: "screen-2.html"))]),
            ("paywall", ".purchase", [.capture(#"{"screen":"index.html","answer":"annual","product":"com.example.sprout.plus.annual"}"#), .message(.purchase(product: "com.example.sprout.plus.annual"))]),
            ("paywall", ".link-strong", [.message(.restorePurchases)]),
            ("paywall", ".close", [.message(.dismiss)]),
            ("paywall", #"[data-url$="/terms"]"#, [.message(.openLink(URL(string: "https://sprout.example.com/terms")!))]),
            ("paywall", #"[data-url$="/privacy"]"#, [.message(.openLink(URL(string: "https://sprout.example.com/privacy")!))]),
            ("legacy-prompt", ".button-primary", [.message(.openLink(URL(string: "https://sprout.example.com/update")!))]),
            ("legacy-prompt", ".button-plain", [.message(.dismiss)]),
        ]

        enum Expected: Sendable {
            case capture(String)
            case message(BridgeMessage)

            func matches(_ message: BridgeMessage) -> Bool {
                switch (self, message) {
                case (.capture(let body), .capture(let event, let bytes)): !event.isEmpty && bytes == Array(body.utf8)
                case (.message(let expected), _): expected == message
                default: false
                }
            }
        }

        @Test(arguments: ["onboarding", "paywall", "legacy-prompt"])
        func eachBridgeActionOfTheSamplesReachesTheHost(_ sample: String) async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installSample(sample)
            let (renderer, inbox) = try await fixture.startedRenderer()
            for action in Self.actions where action.sample == sample {
                try await renderer.load(try fixture.content(bundle), visible: false)
                let shownBefore = inbox.received.count
                try await renderer.show(session("s1", bundle))
                // The paywall's analytics, held while it was hidden, go once it is shown.
                let held = sample == "paywall" ? 1 : 0
                #expect(await within { inbox.received.count >= shownBefore + held }, "\(action.click)")
                let before = inbox.received.count
                #expect(before == shownBefore + held, "\(inbox.received.dropFirst(shownBefore))")
                _ = try await renderer.evaluate("document.querySelector(\(quoted(action.click))).click()")
                #expect(await within { inbox.received.count >= before + action.expected.count }, "\(action.click)")
                let received = Array(inbox.received.dropFirst(before))
                #expect(received.count == action.expected.count, "\(action.click): \(received)")
                for (message, expected) in zip(received, action.expected) {
                    #expect(expected.matches(message), "\(action.click): \(message)")
                }
            }
            #expect(await renderer.refusals.isEmpty)
            await renderer.stop()
        }

        private func quoted(_ text: String) -> String { String(decoding: JSONValue.string(text).canonicalBytes, as: UTF8.self) }
    }
}
