import Foundation
import Glibc

extension Corpus.FolderGen {
    // MARK: JSON

    mutating func jsonString(_ o: inout Out, _ kind: Int) {
        o.byte(34)
        switch kind {
        case 0:
            o.s(rng.pick(["plan", "prod", "offer", "exp", "item"]))
            o.byte(95)
            o.w(Vocab.words[rng.skewed(Vocab.words.count)])
            o.byte(95)
            o.int(rng.range(1, 99))
        case 1: sentence(&o, 3, 12, end: 46)
        case 5: o.hex(rng.next(), digits: 16)
        case 6:
            o.int(rng.range(2023, 2025))
            o.byte(45)
            let month = rng.range(1, 12), day = rng.range(1, 28)
            if month < 10 { o.byte(48) }
            o.int(month)
            o.byte(45)
            if day < 10 { o.byte(48) }
            o.int(day)
            o.s("T")
            let hour = rng.range(0, 23)
            if hour < 10 { o.byte(48) }
            o.int(hour)
            o.s(":00:00Z")
        default: o.s(rng.pick(Vocab.modifiers))
        }
        o.byte(34)
    }

    mutating func jsonFile(_ file: Asset) -> [UInt8] {
        var o = Out(capacity: file.size + 4096)
        let pretty = rng.chance(0.75)
        func newline(_ o: inout Out, _ level: Int) {
            if pretty {
                o.nl()
                o.indent(level)
            }
        }
        let colon = pretty ? ": " : ":"
        o.s("{")
        newline(&o, 1)
        o.s("\"schemaVersion\"")
        o.s(colon)
        o.int(rng.range(1, 4))
        o.byte(44)
        newline(&o, 1)
        o.s("\"flow\"")
        o.s(colon)
        o.s("\"")
        o.s(flow)
        o.s("\",")
        newline(&o, 1)
        if file.name == "strings.json" {
            o.s("\"locale\"")
            o.s(colon)
            o.s("\"en\",")
            newline(&o, 1)
            o.s("\"strings\"")
            o.s(colon)
            o.s("{")
            var first = true
            while o.count + 8 < file.size || first {
                if !first { o.byte(44) }
                first = false
                newline(&o, 2)
                o.byte(34)
                o.s(rng.pick(Vocab.screens))
                o.byte(46)
                o.w(classes[rng.skewed(classes.count)])
                if rng.chance(0.3) {
                    o.byte(95)
                    o.int(rng.range(1, 9))
                }
                o.byte(34)
                o.s(colon)
                jsonString(&o, 1)
            }
            newline(&o, 1)
            o.s("}")
        } else {
            let keyCount = rng.range(5, 11)
            let fields = rng.sample(Vocab.jsonKeys, keyCount)
            let keys = fields.map { $0.0 }
            let types = fields.map { $0.1 }
            o.s("\"items\"")
            o.s(colon)
            o.s("[")
            var first = true
            var order = 0
            while o.count + 8 < file.size || first {
                if !first { o.byte(44) }
                first = false
                order += 1
                newline(&o, 2)
                o.s("{")
                for (k, key) in keys.enumerated() {
                    if k > 0 { o.byte(44) }
                    newline(&o, 3)
                    o.byte(34)
                    o.s(key)
                    o.byte(34)
                    o.s(colon)
                    switch types[k] {
                    case 2: o.int(k == 0 ? order : rng.range(0, 30))
                    case 3: price(&o)
                    case 4: o.s(rng.chance(0.6) ? "true" : "false")
                    case 7:
                        o.s("[")
                        let n = rng.range(0, 3)
                        for i in 0..<n {
                            if i > 0 { o.s(pretty ? ", " : ",") }
                            jsonString(&o, 9)
                        }
                        o.s("]")
                    case 8:
                        o.s("{")
                        o.s(pretty ? "\"amount\": " : "\"amount\":")
                        price(&o)
                        o.s(pretty ? ", \"currency\": \"" : ",\"currency\":\"")
                        o.s(rng.pick(["USD", "USD", "EUR", "GBP"]))
                        o.s("\"}")
                    default: jsonString(&o, types[k])
                    }
                }
                newline(&o, 2)
                o.s("}")
            }
            newline(&o, 1)
            o.s("]")
        }
        newline(&o, 0)
        o.s("}\n")
        return o.b
    }

    // MARK: SVG

    mutating func svgNumber(_ o: inout Out, _ scaled: Int, leadingSpace: Bool) {
        if leadingSpace && scaled >= 0 { o.byte(32) }
        o.fixed(scaled, places: 2, compact: true)
    }

    mutating func svgFile(_ file: Asset) -> [UInt8] {
        var o = Out(capacity: file.size + 2048)
        let w = file.width, h = file.height
        o.s("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        o.int(w)
        o.s("\" height=\"")
        o.int(h)
        o.s("\" viewBox=\"0 0 ")
        o.int(w)
        o.s(" ")
        o.int(h)
        o.s("\" fill=\"none\">\n")
        let span = max(w, h) * 100
        while o.count + 40 < file.size {
            if rng.chance(0.12) {
                o.s(rng.chance(0.5) ? "  <circle cx=\"" : "  <ellipse cx=\"")
                o.fixed(rng.below(w * 100), places: 2, compact: true)
                o.s("\" cy=\"")
                o.fixed(rng.below(h * 100), places: 2, compact: true)
                o.s("\" r=\"")
                o.fixed(rng.range(50, span / 4), places: 2, compact: true)
                o.s("\" fill=\"")
                o.w(palette[rng.skewed(palette.count)])
                o.s("\"/>\n")
                continue
            }
            o.s("  <path d=\"M")
            o.fixed(rng.below(w * 100), places: 2, compact: true)
            svgNumber(&o, rng.below(h * 100), leadingSpace: true)
            let segments = rng.range(3, file.width <= 24 ? 12 : 40)
            for _ in 0..<segments {
                let delta = max(60, span / 6)
                switch rng.below(6) {
                case 0, 1:
                    o.byte(99)
                    for i in 0..<6 { svgNumber(&o, rng.range(-delta, delta), leadingSpace: i > 0) }
                case 2:
                    o.byte(108)
                    svgNumber(&o, rng.range(-delta, delta), leadingSpace: false)
                    svgNumber(&o, rng.range(-delta, delta), leadingSpace: true)
                case 3:
                    o.byte(rng.chance(0.5) ? 104 : 118)
                    svgNumber(&o, rng.range(-delta, delta), leadingSpace: false)
                case 4:
                    o.byte(115)
                    for i in 0..<4 { svgNumber(&o, rng.range(-delta, delta), leadingSpace: i > 0) }
                default:
                    o.byte(97)
                    let r = rng.range(25, delta)
                    svgNumber(&o, r, leadingSpace: false)
                    svgNumber(&o, r, leadingSpace: true)
                    o.s(" 0 0 ")
                    o.int(rng.below(2))
                    svgNumber(&o, rng.range(-delta, delta), leadingSpace: true)
                    svgNumber(&o, rng.range(-delta, delta), leadingSpace: true)
                }
            }
            o.s(rng.chance(0.7) ? "z\" fill=\"" : "\" stroke-width=\"1.5\" stroke-linecap=\"round\" stroke=\"")
            if rng.chance(0.3) { o.s("currentColor") } else { o.w(palette[rng.skewed(palette.count)]) }
            o.s(rng.chance(0.3) ? "\" fill-rule=\"evenodd\" clip-rule=\"evenodd\"/>\n" : "\"/>\n")
        }
        o.s("</svg>\n")
        return o.b
    }
}
