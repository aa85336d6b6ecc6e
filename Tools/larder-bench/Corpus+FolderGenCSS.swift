import Foundation
import Glibc

extension Corpus.FolderGen {
    // MARK: CSS

    mutating func cssColor(_ o: inout Out) {
        let r = rng.below(10)
        if r < 7 {
            o.w(palette[rng.skewed(palette.count)])
        } else if r < 9 {
            o.s("var(")
            o.s(rng.pick(Vocab.cssVariables))
            o.s(")")
        } else {
            o.s("rgba(0, 0, 0, 0.")
            o.int(rng.pick([4, 6, 8, 12, 16, 24, 32, 48, 64]))
            o.s(")")
        }
    }

    mutating func cssLength(_ o: inout Out) {
        let v = rng.chance(0.45) ? rng.range(1, 480) : Vocab.lengths[rng.skewed(Vocab.lengths.count)]
        if v == 0 {
            o.s("0")
        } else if rng.chance(0.2) {
            o.fixed(v * 100 / 16, places: 2, compact: true)
            o.s("rem")
        } else {
            o.int(v)
            o.s("px")
        }
    }

    mutating func cssValue(_ o: inout Out, _ spec: String) {
        switch spec {
        case "$len":
            cssLength(&o)
        case "$size":
            let r = rng.below(8)
            switch r {
            case 0: o.s("100%")
            case 1: o.s("auto")
            case 2: o.s("50%")
            case 3: o.s("100vh")
            case 4: o.s("calc(100% - "); cssLength(&o); o.s(")")
            case 5: o.s("min(480px, 100%)")
            default: cssLength(&o)
            }
        case "$box":
            let n = rng.range(1, 4)
            for i in 0..<n {
                if i > 0 { o.byte(32) }
                cssLength(&o)
            }
        case "$color":
            cssColor(&o)
        case "$bg":
            if rng.chance(0.6) {
                cssColor(&o)
            } else {
                o.s("linear-gradient(")
                o.int(rng.pick([90, 135, 180, 180]))
                o.s("deg, ")
                cssColor(&o)
                o.s(" 0%, ")
                cssColor(&o)
                o.s(" 100%)")
            }
        case "$border":
            o.int(rng.range(1, 2))
            o.s("px solid ")
            cssColor(&o)
        case "$font":
            if rng.chance(0.5) { o.s("var(--font-body)") } else { o.w(fontStack) }
        case "$fs":
            o.int(rng.pick([11, 12, 13, 14, 15, 16, 17, 18, 20, 22, 24, 28, 32, 40, 48]))
            o.s("px")
        case "$unit":
            o.s(rng.pick(["0", "0.4", "0.5", "0.6", "0.72", "0.8", "0.9", "1"]))
        case "$transform":
            switch rng.below(5) {
            case 0: o.s("translateY("); o.int(rng.range(-24, 24)); o.s("px)")
            case 1: o.s("scale(0.9"); o.int(rng.range(0, 9)); o.s(")")
            case 2: o.s("translate(-50%, -50%)")
            case 3: o.s("rotate("); o.int(rng.pick([-90, -45, 45, 90, 180])); o.s("deg)")
            default: o.s("translateX("); o.int(rng.range(-100, 100)); o.s("%)")
            }
        case "$trans":
            let n = rng.range(1, 2)
            for i in 0..<n {
                if i > 0 { o.s(", ") }
                o.s(rng.pick(["opacity", "transform", "background-color", "color", "box-shadow", "all"]))
                o.s(" ")
                o.s(rng.pick(["0.15s", "0.2s", "0.25s", "0.3s", "0.4s", "150ms", "200ms"]))
                o.s(" ")
                o.s(rng.pick(Vocab.easings))
            }
        case "$shadow":
            if rng.chance(0.2) {
                o.s("none")
            } else {
                o.s("0 ")
                o.int(rng.pick([1, 2, 4, 8, 12]))
                o.s("px ")
                o.int(rng.pick([2, 4, 8, 16, 24, 32]))
                o.s("px rgba(0, 0, 0, 0.")
                o.int(rng.pick([4, 6, 8, 1, 12, 16, 2]))
                o.s(")")
            }
        case "$anim":
            o.s(rng.pick(Vocab.keyframes))
            o.s(" ")
            o.s(rng.pick(["0.3s", "0.4s", "0.6s", "1s", "1.2s", "2s"]))
            o.s(" ")
            o.s(rng.pick(Vocab.easings))
            o.s(rng.pick([" both", " forwards", " infinite", ""]))
        default:
            o.s(spec)
        }
    }

    mutating func selector(_ o: inout Out) {
        let n = rng.chance(0.75) ? 1 : rng.range(2, 3)
        for i in 0..<n {
            if i > 0 { o.s(",\n") }
            o.byte(46)
            o.w(classes[rng.skewed(classes.count)])
            let r = rng.below(10)
            if r < 3 {
                o.s(rng.pick(Vocab.pseudo))
            } else if r < 5 {
                o.s(rng.chance(0.5) ? " > ." : " .")
                o.w(classes[rng.skewed(classes.count)])
            }
        }
    }

    mutating func rule(_ o: inout Out, level: Int) {
        o.indent(level)
        selector(&o)
        o.s(" {\n")
        let n = rng.range(2, 8)
        for _ in 0..<n {
            let (property, values) = Vocab.cssProperties[rng.below(Vocab.cssProperties.count)]
            o.indent(level + 1)
            o.s(property)
            o.s(": ")
            cssValue(&o, rng.pick(values))
            o.s(";\n")
        }
        o.indent(level)
        o.s("}\n\n")
    }

    mutating func stylesheet(_ file: Asset, isMain: Bool, backgrounds: [Asset]) -> [UInt8] {
        // Secondary stylesheets are sometimes shipped minified; write ~30% more and squeeze.
        let minified = !isMain && rng.chance(0.4)
        var file = file
        if minified { file.size = file.size * 13 / 10 }
        var o = Out(capacity: file.size + 4096)
        o.s("/* ")
        o.s(flow)
        o.s(" / ")
        o.s(file.name)
        o.s(" */\n\n")
        if isMain {
            for face in fonts {
                o.s("@font-face {\n  font-family: \"")
                o.s(face.family)
                o.s("\";\n  font-style: ")
                o.s(face.italic ? "italic" : "normal")
                o.s(";\n  font-weight: ")
                o.int(face.weight)
                o.s(";\n  font-display: swap;\n  src: url(\"../fonts/")
                o.s(face.fileName)
                o.s("\") format(\"truetype\");\n}\n\n")
            }
            o.s(":root {\n")
            for (i, name) in Vocab.cssVariables.enumerated() {
                o.s("  ")
                o.s(name)
                o.s(": ")
                o.w(palette[i % palette.count])
                o.s(";\n")
            }
            o.s("  --font-body: ")
            o.w(fontStack)
            o.s(";\n  --radius-card: ")
            o.int(rng.pick([8, 12, 16, 20, 24]))
            o.s("px;\n}\n\n")
            o.s("*,\n*::before,\n*::after {\n  box-sizing: border-box;\n}\n\n")
            o.s("html,\nbody {\n  margin: 0;\n  padding: 0;\n  font-family: var(--font-body);\n")
            o.s("  color: var(--color-text);\n  background: var(--color-background);\n")
            o.s("  -webkit-font-smoothing: antialiased;\n}\n\n")
        }
        var pending = backgrounds
        while o.count < file.size || !pending.isEmpty {
            if !pending.isEmpty && (o.count >= file.size || rng.chance(0.25)) {
                let asset = pending.removeLast()
                o.byte(46)
                o.w(classes[rng.skewed(classes.count)])
                o.s(" {\n  background-image: url(../")
                o.s(asset.path)
                o.s(");\n")
                if asset.kind == .svg {
                    o.s("  background-repeat: no-repeat;\n  background-size: ")
                    o.int(asset.width)
                    o.s("px ")
                    o.int(asset.height)
                    o.s("px;\n")
                } else {
                    o.s("  background-size: cover;\n  background-position: center;\n")
                }
                o.s("}\n\n")
                continue
            }
            let r = rng.below(24)
            if r == 0 {
                o.s("@keyframes ")
                o.s(rng.pick(Vocab.keyframes))
                o.s(" {\n  from {\n    opacity: 0;\n    transform: ")
                cssValue(&o, "$transform")
                o.s(";\n  }\n  to {\n    opacity: 1;\n    transform: none;\n  }\n}\n\n")
            } else if r < 3 {
                o.s("@media (")
                o.s(rng.pick(["min-width: 768px", "max-width: 375px", "min-width: 1024px", "prefers-color-scheme: dark", "prefers-reduced-motion: reduce"]))
                o.s(") {\n")
                let n = rng.range(1, 4)
                for _ in 0..<n { rule(&o, level: 1) }
                o.s("}\n\n")
            } else {
                rule(&o, level: 0)
            }
        }
        return minified ? Corpus.minifyCSS(o.b) : o.b
    }
}
