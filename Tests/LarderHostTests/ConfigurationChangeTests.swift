import Foundation
import LarderFormat
@testable import LarderHost
import Testing

/// Issue 21, item 2: what each field of a new configuration invalidates, as one pure decision
/// over the old and the new configuration (``ConfigurationChange``), one row per field.
@Suite struct ConfigurationChangeTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var field: String
        var change: @Sendable (inout JourneyConfiguration) -> Void
        var invalidates: ConfigurationChange
        var testDescription: String { field }
    }

    static let base = JourneyConfiguration(
        publishableKey: "pk_test", journeyID: "onboarding", identity: JourneyIdentity(externalID: "usr_1"),
        origin: URL(string: "http://origin.test/")!, embeddedDefault: "/app/onboarding.tar.gz", removedJourney: .keepServing)
    static let key = try! SigningKey.generate().publicKey

    static let rows = [
        Row(field: "nothing", change: { _ in }, invalidates: []),
        Row(field: "key", change: { $0.publishableKey = "pk_other" }, invalidates: .scope),
        Row(field: "journey", change: { $0.journeyID = "paywall" }, invalidates: .scope),
        Row(field: "identity", change: { $0.identity = JourneyIdentity(externalID: "usr_2") }, invalidates: .scope),
        Row(field: "no identity", change: { $0.identity = nil }, invalidates: .scope),
        Row(field: "origin", change: { $0.origin = URL(string: "http://origin.test/v2/")! }, invalidates: [.scope, .downloads]),
        Row(field: "another embedded default", change: { $0.embeddedDefault = "/app/paywall.tar.gz" }, invalidates: .embeddedDefault),
        Row(field: "no embedded default", change: { $0.embeddedDefault = nil }, invalidates: .embeddedDefault),
        Row(field: "download limits", change: { $0.download.deadline = .seconds(30) }, invalidates: .downloads),
        Row(field: "download parallelism", change: { $0.download.parallelism = 2 }, invalidates: .downloads),
        Row(field: "trusted keys", change: { $0.trustedKeys = [key] }, invalidates: .trust),
        Row(field: "removed journey: keep to discard", change: { $0.removedJourney = .discard }, invalidates: .keptRemoval),
        Row(field: "fetch deadline", change: { $0.fetchDeadline = .seconds(1) }, invalidates: []),
        Row(field: "presentation deadline", change: { $0.presentationDeadline = .seconds(3) }, invalidates: []),
        Row(field: "capture context", change: { $0.capture?.context = ["plan": "annual"] }, invalidates: []),
        Row(field: "capture endpoint", change: { $0.capture?.endpoint = URL(string: "http://events.test/")! }, invalidates: []),
        Row(field: "capture batch size", change: { $0.capture?.batchSize = 5 }, invalidates: []),
        Row(field: "capture off", change: { $0.capture = nil }, invalidates: []),
        Row(
            field: "journey and embedded default", change: { $0.journeyID = "paywall"; $0.embeddedDefault = "/app/paywall.tar.gz" },
            invalidates: [.scope, .embeddedDefault]),
    ]

    @Test(arguments: rows)
    func whatEachFieldInvalidates(_ row: Row) {
        var new = Self.base
        row.change(&new)
        #expect(ConfigurationChange.between(Self.base, new) == row.invalidates)
    }

    @Test func fromDiscardToKeepInvalidatesNothing() {
        var old = Self.base
        old.removedJourney = .discard
        #expect(ConfigurationChange.between(old, Self.base) == [])
    }
}
