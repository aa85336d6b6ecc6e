/// The names of app events: what `JourneyHost`'s `track` records and what a triggers
/// document (``TriggerDocument``) maps to journeys. One rule for the publisher and the host.
public enum EventName {
    /// The longest name, in bytes.
    public static let maximumLength = 100

    /// Whether `name` is an event name: `^[a-z][a-z0-9_:]*$`, at most 100 characters
    /// (`checkout_started`, `paywall:closed`).
    public static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, isLowercaseLetter(first), bytes.count <= maximumLength else { return false }
        return bytes.allSatisfy { isLowercaseLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ":") }
    }

    /// What a bad name is told, naming it.
    public static func rule(for name: String) -> String {
        "'\(name.prefix(120))' is not an event name: use lowercase letters, digits, '_' and ':', starting with a letter (at most \(maximumLength))"
    }

    private static func isLowercaseLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
}
