import Foundation
import Glibc

extension Corpus.FolderGen {
    // MARK: JSON

    mutating func jsonString(_ output: inout Output, _ kind: Int) {
        output.byte(34)
        switch kind {
        case 0:
            output.append(random.pick(["plan", "prod", "offer", "exp", "item"]))
            output.byte(95)
            output.append(contentsOf: Vocab.words[random.skewed(Vocab.words.count)])
            output.byte(95)
            output.decimal(random.range(1, 99))
        case 1: sentence(&output, 3, 12, end: 46)
        case 5: output.hex(random.next(), digits: 16)
        case 6:
            output.decimal(random.range(2023, 2025))
            output.byte(45)
            let month = random.range(1, 12), day = random.range(1, 28)
            if month < 10 { output.byte(48) }
            output.decimal(month)
            output.byte(45)
            if day < 10 { output.byte(48) }
            output.decimal(day)
            output.append("T")
            let hour = random.range(0, 23)
            if hour < 10 { output.byte(48) }
            output.decimal(hour)
            output.append(":00:00Z")
        default: output.append(random.pick(Vocab.modifiers))
        }
        output.byte(34)
    }

    mutating func jsonFile(_ file: Asset) -> [UInt8] {
        var output = Output(capacity: file.size + 4096)
        let pretty = random.chance(0.75)
        func newline(_ output: inout Output, _ level: Int) {
            if pretty {
                output.newline()
                output.indent(level)
            }
        }
        let colon = pretty ? ": " : ":"
        output.append("{")
        newline(&output, 1)
        output.append("\"schemaVersion\"")
        output.append(colon)
        output.decimal(random.range(1, 4))
        output.byte(44)
        newline(&output, 1)
        output.append("\"flow\"")
        output.append(colon)
        output.append("\"")
        output.append(flow)
        output.append("\",")
        newline(&output, 1)
        if file.name == "strings.json" {
            output.append("\"locale\"")
            output.append(colon)
            output.append("\"en\",")
            newline(&output, 1)
            output.append("\"strings\"")
            output.append(colon)
            output.append("{")
            var first = true
            while output.count + 8 < file.size || first {
                if !first { output.byte(44) }
                first = false
                newline(&output, 2)
                output.byte(34)
                output.append(random.pick(Vocab.screens))
                output.byte(46)
                output.append(contentsOf: classes[random.skewed(classes.count)])
                if random.chance(0.3) {
                    output.byte(95)
                    output.decimal(random.range(1, 9))
                }
                output.byte(34)
                output.append(colon)
                jsonString(&output, 1)
            }
            newline(&output, 1)
            output.append("}")
        } else {
            let keyCount = random.range(5, 11)
            let fields = random.sample(Vocab.jsonKeys, keyCount)
            let keys = fields.map { $0.0 }
            let types = fields.map { $0.1 }
            output.append("\"items\"")
            output.append(colon)
            output.append("[")
            var first = true
            var order = 0
            while output.count + 8 < file.size || first {
                if !first { output.byte(44) }
                first = false
                order += 1
                newline(&output, 2)
                output.append("{")
                for (k, key) in keys.enumerated() {
                    if k > 0 { output.byte(44) }
                    newline(&output, 3)
                    output.byte(34)
                    output.append(key)
                    output.byte(34)
                    output.append(colon)
                    switch types[k] {
                    case 2: output.decimal(k == 0 ? order : random.range(0, 30))
                    case 3: price(&output)
                    case 4: output.append(random.chance(0.6) ? "true" : "false")
                    case 7:
                        output.append("[")
                        let n = random.range(0, 3)
                        for i in 0..<n {
                            if i > 0 { output.append(pretty ? ", " : ",") }
                            jsonString(&output, 9)
                        }
                        output.append("]")
                    case 8:
                        output.append("{")
                        output.append(pretty ? "\"amount\": " : "\"amount\":")
                        price(&output)
                        output.append(pretty ? ", \"currency\": \"" : ",\"currency\":\"")
                        output.append(random.pick(["USD", "USD", "EUR", "GBP"]))
                        output.append("\"}")
                    default: jsonString(&output, types[k])
                    }
                }
                newline(&output, 2)
                output.append("}")
            }
            newline(&output, 1)
            output.append("]")
        }
        newline(&output, 0)
        output.append("}\n")
        return output.bytes
    }

    // MARK: SVG

    mutating func svgNumber(_ output: inout Output, _ scaled: Int, leadingSpace: Bool) {
        if leadingSpace && scaled >= 0 { output.byte(32) }
        output.fixed(scaled, places: 2, compact: true)
    }

    mutating func svgFile(_ file: Asset) -> [UInt8] {
        var output = Output(capacity: file.size + 2048)
        let w = file.width, h = file.height
        output.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        output.decimal(w)
        output.append("\" height=\"")
        output.decimal(h)
        output.append("\" viewBox=\"0 0 ")
        output.decimal(w)
        output.append(" ")
        output.decimal(h)
        output.append("\" fill=\"none\">\n")
        let span = max(w, h) * 100
        while output.count + 40 < file.size {
            if random.chance(0.12) {
                output.append(random.chance(0.5) ? "  <circle cx=\"" : "  <ellipse cx=\"")
                output.fixed(random.below(w * 100), places: 2, compact: true)
                output.append("\" cy=\"")
                output.fixed(random.below(h * 100), places: 2, compact: true)
                output.append("\" r=\"")
                output.fixed(random.range(50, span / 4), places: 2, compact: true)
                output.append("\" fill=\"")
                output.append(contentsOf: palette[random.skewed(palette.count)])
                output.append("\"/>\n")
                continue
            }
            output.append("  <path d=\"M")
            output.fixed(random.below(w * 100), places: 2, compact: true)
            svgNumber(&output, random.below(h * 100), leadingSpace: true)
            let segments = random.range(3, file.width <= 24 ? 12 : 40)
            for _ in 0..<segments {
                let delta = max(60, span / 6)
                switch random.below(6) {
                case 0, 1:
                    output.byte(99)
                    for i in 0..<6 { svgNumber(&output, random.range(-delta, delta), leadingSpace: i > 0) }
                case 2:
                    output.byte(108)
                    svgNumber(&output, random.range(-delta, delta), leadingSpace: false)
                    svgNumber(&output, random.range(-delta, delta), leadingSpace: true)
                case 3:
                    output.byte(random.chance(0.5) ? 104 : 118)
                    svgNumber(&output, random.range(-delta, delta), leadingSpace: false)
                case 4:
                    output.byte(115)
                    for i in 0..<4 { svgNumber(&output, random.range(-delta, delta), leadingSpace: i > 0) }
                default:
                    output.byte(97)
                    let r = random.range(25, delta)
                    svgNumber(&output, r, leadingSpace: false)
                    svgNumber(&output, r, leadingSpace: true)
                    output.append(" 0 0 ")
                    output.decimal(random.below(2))
                    svgNumber(&output, random.range(-delta, delta), leadingSpace: true)
                    svgNumber(&output, random.range(-delta, delta), leadingSpace: true)
                }
            }
            output.append(random.chance(0.7) ? "z\" fill=\"" : "\" stroke-width=\"1.5\" stroke-linecap=\"round\" stroke=\"")
            if random.chance(0.3) { output.append("currentColor") } else { output.append(contentsOf: palette[random.skewed(palette.count)]) }
            output.append(random.chance(0.3) ? "\" fill-rule=\"evenodd\" clip-rule=\"evenodd\"/>\n" : "\"/>\n")
        }
        output.append("</svg>\n")
        return output.bytes
    }
}
