/// The OpenType layout features a subset keeps beyond those engines apply unasked (HarfBuzz's
/// default set: kern, liga, calt, ccmp, locl, mark, mkmk, the script shaping features…): the
/// ones the bundle's CSS asks for (`font-feature-settings`, `font-variant…`) and those
/// `larder.json` names (`"features"`, `"*"` for all of them).
struct FontFeatures: Sendable, Equatable, CustomStringConvertible {
    var all = false
    var tags: Set<String> = []

    /// For cache keys: `all`, or `default` and the tags.
    var description: String { all ? "all" : (["default"] + tags.sorted()).joined(separator: " ") }

    /// What `font-variant` keywords turn on (CSS Fonts 4, "font-variant-*" to OpenType).
    static let variants: [String: [String]] = [
        "small-caps": ["smcp"], "all-small-caps": ["smcp", "c2sc"], "petite-caps": ["pcap"], "all-petite-caps": ["pcap", "c2pc"],
        "unicase": ["unic"], "titling-caps": ["titl"], "lining-nums": ["lnum"], "oldstyle-nums": ["onum"],
        "proportional-nums": ["pnum"], "tabular-nums": ["tnum"], "diagonal-fractions": ["frac"], "stacked-fractions": ["afrc"],
        "ordinal": ["ordn"], "slashed-zero": ["zero"], "discretionary-ligatures": ["dlig"], "historical-ligatures": ["hlig"],
        "sub": ["subs"], "super": ["sups"], "historical-forms": ["hist"], "full-width": ["fwid"], "proportional-width": ["pwid"],
        "ruby": ["ruby"], "jis78": ["jp78"], "jis83": ["jp83"], "jis90": ["jp90"], "jis04": ["jp04"], "simplified": ["smpl"],
        "traditional": ["trad"],
    ]

    /// The features the `font-feature-settings` and `font-variant…` declarations of HTML or
    /// CSS bytes ask for (quoted four-letter tags; the keywords of ``variants``).
    static func asked(in bytes: UnsafeBufferPointer<UInt8>) -> Set<String> {
        var found: Set<String> = []
        let text = String(decoding: bytes, as: UTF8.self).lowercased()
        var rest = text[...]
        while let property = [rest.range(of: "font-feature-settings"), rest.range(of: "font-variant")].compactMap({ $0 })
            .min(by: { $0.lowerBound < $1.lowerBound })
        {
            let value = rest[property.upperBound...].prefix { $0 != ";" && $0 != "}" && $0 != ">" }
            if text[property].hasPrefix("font-feature-settings") {
                for item in value.split(whereSeparator: { $0 == "\"" || $0 == "'" }) where item.count == 4 && item.allSatisfy({ $0.isASCII && !$0.isWhitespace }) {
                    found.insert(String(item))
                }
            } else {
                for word in value.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "-" }) {
                    for tag in variants[String(word)] ?? [] { found.insert(tag) }
                }
            }
            rest = rest[property.upperBound...]
        }
        return found
    }
}
