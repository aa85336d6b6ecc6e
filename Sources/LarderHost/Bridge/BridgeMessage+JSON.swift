import Foundation
import LarderFormat

/// The JSON wire form of bridge messages: one object with a `type` and exactly the fields that
/// type has, nothing else.
///
/// ```
/// {"type":"dismiss"}
/// {"type":"complete"}
/// {"type":"navigate","screen":"<non-empty>"}
/// {"type":"open-link","url":"<absolute http, https or mailto URL>"}
/// {"type":"purchase","product":"<non-empty>"}
/// {"type":"restore"}
/// {"type":"custom","name":"<non-empty>","payload":<any JSON>}
/// {"type":"capture","event":"<non-empty id>","body":"<string>"}
/// ```
extension BridgeMessage {
    /// The schemes an `open-link` message may name.
    public static let linkSchemes: Set<String> = ["http", "https", "mailto"]

    /// Parses a message strictly.
    ///
    /// A capture body becomes the UTF-8 bytes of its string exactly as JSON decoded it; nothing
    /// is normalised or re-encoded.
    /// - Parameter json: the message as the content sent it.
    /// - Throws: ``HostError`` with code ``HostError/Code/malformedDocument`` whose message
    ///   names the field that is wrong: bytes that are not JSON, a value that is not an object,
    ///   a missing or unknown `type`, a missing or wrongly typed field, an unknown extra field.
    public init(json: [UInt8]) throws(HostError) {
        let value: JSONValue
        do { value = try JSONValue.parse(json) } catch {
            throw Self.malformed("the bridge message is not JSON: \(error.message)")
        }
        guard case .object(let fields) = value else {
            throw Self.malformed("the bridge message must be a JSON object, not \(value.kindName)")
        }
        guard let typeValue = fields["type"] else { throw Self.malformed("the bridge message has no field 'type'") }
        guard case .string(let type) = typeValue else {
            throw Self.malformed("field 'type' of the bridge message must be a string, not \(typeValue.kindName)")
        }
        let reader = FieldReader(type: type, fields: fields)
        switch type {
        case "dismiss":
            try reader.allow([])
            self = .dismiss
        case "complete":
            try reader.allow([])
            self = .complete
        case "navigate":
            try reader.allow(["screen"])
            self = .navigate(screen: try reader.nonEmptyString("screen"))
        case "open-link":
            try reader.allow(["url"])
            self = .openLink(try reader.link("url"))
        case "purchase":
            try reader.allow(["product"])
            self = .purchase(product: try reader.nonEmptyString("product"))
        case "restore":
            try reader.allow([])
            self = .restorePurchases
        case "custom":
            try reader.allow(["name", "payload"])
            let name = try reader.nonEmptyString("name")
            self = .custom(name: name, payload: try reader.value("payload"))
        case "capture":
            try reader.allow(["event", "body"])
            let event = try reader.identifier("event")
            self = .capture(event: event, body: Array(try reader.string("body").utf8))
        default:
            throw Self.malformed("field 'type' names an unknown bridge message type '\(type.prefix(100))'")
        }
    }

    /// The canonical JSON form (sorted keys, no whitespace; see `JSONValue.canonicalBytes`),
    /// which ``init(json:)`` reads back to an equal message.
    ///
    /// A capture body that is not valid UTF-8 cannot be a JSON string: its invalid bytes are
    /// written as U+FFFD. Bodies that came from ``init(json:)`` are always valid.
    public var json: [UInt8] {
        var fields: [String: JSONValue] = [:]
        switch self {
        case .dismiss:
            fields["type"] = .string("dismiss")
        case .complete:
            fields["type"] = .string("complete")
        case .navigate(let screen):
            fields = ["type": .string("navigate"), "screen": .string(screen)]
        case .openLink(let url):
            fields = ["type": .string("open-link"), "url": .string(url.absoluteString)]
        case .purchase(let product):
            fields = ["type": .string("purchase"), "product": .string(product)]
        case .restorePurchases:
            fields["type"] = .string("restore")
        case .custom(let name, let payload):
            fields = ["type": .string("custom"), "name": .string(name), "payload": payload]
        case .capture(let event, let body):
            fields = ["type": .string("capture"), "event": .string(event), "body": .string(String(decoding: body, as: UTF8.self))]
        }
        return JSONValue.object(fields).canonicalBytes
    }

    fileprivate static func malformed(_ message: String) -> HostError { HostError(.malformedDocument, message) }
}

/// Reads the fields of one message type, with errors that name the field and the type.
private struct FieldReader {
    let type: String
    let fields: [String: JSONValue]

    /// Refuses any field but `type` and `allowed`.
    func allow(_ allowed: Set<String>) throws(HostError) {
        let extra = fields.keys.filter { $0 != "type" && !allowed.contains($0) }.sorted()
        if let first = extra.first {
            throw BridgeMessage.malformed("unknown field '\(first.prefix(100))' in a '\(type)' bridge message")
        }
    }

    func value(_ name: String) throws(HostError) -> JSONValue {
        guard let value = fields[name] else {
            throw BridgeMessage.malformed("a '\(type)' bridge message needs the field '\(name)'")
        }
        return value
    }

    func string(_ name: String) throws(HostError) -> String {
        let value = try value(name)
        guard case .string(let text) = value else {
            throw BridgeMessage.malformed("field '\(name)' of a '\(type)' bridge message must be a string, not \(value.kindName)")
        }
        return text
    }

    func nonEmptyString(_ name: String) throws(HostError) -> String {
        let text = try string(name)
        guard !text.isEmpty else {
            throw BridgeMessage.malformed("field '\(name)' of a '\(type)' bridge message must not be empty")
        }
        return text
    }

    /// A non-empty string without control characters.
    func identifier(_ name: String) throws(HostError) -> String {
        let text = try nonEmptyString(name)
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw BridgeMessage.malformed("field '\(name)' of a '\(type)' bridge message must not contain control characters")
        }
        return text
    }

    /// An absolute `http:`, `https:` (with a host) or `mailto:` URL, written exactly as RFC 3986
    /// allows, so that it reads back unchanged.
    func link(_ name: String) throws(HostError) -> URL {
        let text = try nonEmptyString(name)
        func refuse(_ reason: String) -> HostError {
            BridgeMessage.malformed("field '\(name)' of a '\(type)' bridge message \(reason): '\(text.prefix(200))'")
        }
        let forbidden = Set("\"<>\\^`{|}".utf8)
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !forbidden.contains($0) }) else {
            throw refuse("must be a URL of printable ASCII without spaces (percent-encode the rest)")
        }
        guard let colon = text.firstIndex(of: ":") else { throw refuse("must be an absolute URL with a scheme") }
        let scheme = text[..<colon].lowercased()
        guard BridgeMessage.linkSchemes.contains(scheme) else {
            throw refuse("must use http, https or mailto, not '\(scheme.prefix(40))'")
        }
        guard let url = URL(string: text), url.absoluteString == text else { throw refuse("is not a valid URL") }
        if scheme == "mailto" {
            guard text.count > "mailto:".count else { throw refuse("must name an address after 'mailto:'") }
        } else {
            guard text[text.index(after: colon)...].hasPrefix("//"), let host = url.host, !host.isEmpty else {
                throw refuse("must be an absolute URL with a host")
            }
        }
        return url
    }
}
