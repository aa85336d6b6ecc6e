import Foundation
import Glibc

extension Corpus.FolderGen {
    // MARK: CSS

    mutating func cssColor(_ output: inout Output) {
        let r = random.below(10)
        if r < 7 {
            output.append(contentsOf: palette[random.skewed(palette.count)])
        } else if r < 9 {
            output.append("var(")
            output.append(random.pick(Vocab.cssVariables))
            output.append(")")
        } else {
            output.append("rgba(0, 0, 0, 0.")
            output.decimal(random.pick([4, 6, 8, 12, 16, 24, 32, 48, 64]))
            output.append(")")
        }
    }

    mutating func cssLength(_ output: inout Output) {
        let v = random.chance(0.45) ? random.range(1, 480) : Vocab.lengths[random.skewed(Vocab.lengths.count)]
        if v == 0 {
            output.append("0")
        } else if random.chance(0.2) {
            output.fixed(v * 100 / 16, places: 2, compact: true)
            output.append("rem")
        } else {
            output.decimal(v)
            output.append("px")
        }
    }

    mutating func cssValue(_ output: inout Output, _ spec: String) {
        switch spec {
        case "$len":
            cssLength(&output)
        case "$size":
            let r = random.below(8)
            switch r {
            case 0: output.append("100%")
            case 1: output.append("auto")
            case 2: output.append("50%")
            case 3: output.append("100vh")
            case 4: output.append("calc(100% - "); cssLength(&output); output.append(")")
            case 5: output.append("min(480px, 100%)")
            default: cssLength(&output)
            }
        case "$box":
            let n = random.range(1, 4)
            for i in 0..<n {
                if i > 0 { output.byte(32) }
                cssLength(&output)
            }
        case "$color":
            cssColor(&output)
        case "$bg":
            if random.chance(0.6) {
                cssColor(&output)
            } else {
                output.append("linear-gradient(")
                output.decimal(random.pick([90, 135, 180, 180]))
                output.append("deg, ")
                cssColor(&output)
                output.append(" 0%, ")
                cssColor(&output)
                output.append(" 100%)")
            }
        case "$border":
            output.decimal(random.range(1, 2))
            output.append("px solid ")
            cssColor(&output)
        case "$font":
            if random.chance(0.5) { output.append("var(--font-body)") } else { output.append(contentsOf: fontStack) }
        case "$fs":
            output.decimal(random.pick([11, 12, 13, 14, 15, 16, 17, 18, 20, 22, 24, 28, 32, 40, 48]))
            output.append("px")
        case "$unit":
            output.append(random.pick(["0", "0.4", "0.5", "0.6", "0.72", "0.8", "0.9", "1"]))
        case "$transform":
            switch random.below(5) {
            case 0: output.append("translateY("); output.decimal(random.range(-24, 24)); output.append("px)")
            case 1: output.append("scale(0.9"); output.decimal(random.range(0, 9)); output.append(")")
            case 2: output.append("translate(-50%, -50%)")
            case 3: output.append("rotate("); output.decimal(random.pick([-90, -45, 45, 90, 180])); output.append("deg)")
            default: output.append("translateX("); output.decimal(random.range(-100, 100)); output.append("%)")
            }
        case "$trans":
            let n = random.range(1, 2)
            for i in 0..<n {
                if i > 0 { output.append(", ") }
                output.append(random.pick(["opacity", "transform", "background-color", "color", "box-shadow", "all"]))
                output.append(" ")
                output.append(random.pick(["0.15s", "0.2s", "0.25s", "0.3s", "0.4s", "150ms", "200ms"]))
                output.append(" ")
                output.append(random.pick(Vocab.easings))
            }
        case "$shadow":
            if random.chance(0.2) {
                output.append("none")
            } else {
                output.append("0 ")
                output.decimal(random.pick([1, 2, 4, 8, 12]))
                output.append("px ")
                output.decimal(random.pick([2, 4, 8, 16, 24, 32]))
                output.append("px rgba(0, 0, 0, 0.")
                output.decimal(random.pick([4, 6, 8, 1, 12, 16, 2]))
                output.append(")")
            }
        case "$anim":
            output.append(random.pick(Vocab.keyframes))
            output.append(" ")
            output.append(random.pick(["0.3s", "0.4s", "0.6s", "1s", "1.2s", "2s"]))
            output.append(" ")
            output.append(random.pick(Vocab.easings))
            output.append(random.pick([" both", " forwards", " infinite", ""]))
        default:
            output.append(spec)
        }
    }

    mutating func selector(_ output: inout Output) {
        let n = random.chance(0.75) ? 1 : random.range(2, 3)
        for i in 0..<n {
            if i > 0 { output.append(",\n") }
            output.byte(46)
            output.append(contentsOf: classes[random.skewed(classes.count)])
            let r = random.below(10)
            if r < 3 {
                output.append(random.pick(Vocab.pseudo))
            } else if r < 5 {
                output.append(random.chance(0.5) ? " > ." : " .")
                output.append(contentsOf: classes[random.skewed(classes.count)])
            }
        }
    }

    mutating func rule(_ output: inout Output, level: Int) {
        output.indent(level)
        selector(&output)
        output.append(" {\n")
        let n = random.range(2, 8)
        for _ in 0..<n {
            let (property, values) = Vocab.cssProperties[random.below(Vocab.cssProperties.count)]
            output.indent(level + 1)
            output.append(property)
            output.append(": ")
            cssValue(&output, random.pick(values))
            output.append(";\n")
        }
        output.indent(level)
        output.append("}\n\n")
    }

    mutating func stylesheet(_ file: Asset, isMain: Bool, backgrounds: [Asset]) -> [UInt8] {
        // Secondary stylesheets are sometimes shipped minified; write ~30% more and squeeze.
        let minified = !isMain && random.chance(0.4)
        var file = file
        if minified { file.size = file.size * 13 / 10 }
        var output = Output(capacity: file.size + 4096)
        output.append("/* ")
        output.append(flow)
        output.append(" / ")
        output.append(file.name)
        output.append(" */\n\n")
        if isMain {
            for face in fonts {
                output.append("@font-face {\n  font-family: \"")
                output.append(face.family)
                output.append("\";\n  font-style: ")
                output.append(face.italic ? "italic" : "normal")
                output.append(";\n  font-weight: ")
                output.decimal(face.weight)
                output.append(";\n  font-display: swap;\n  src: url(\"../fonts/")
                output.append(face.fileName)
                output.append("\") format(\"truetype\");\n}\n\n")
            }
            output.append(":root {\n")
            for (i, name) in Vocab.cssVariables.enumerated() {
                output.append("  ")
                output.append(name)
                output.append(": ")
                output.append(contentsOf: palette[i % palette.count])
                output.append(";\n")
            }
            output.append("  --font-body: ")
            output.append(contentsOf: fontStack)
            output.append(";\n  --radius-card: ")
            output.decimal(random.pick([8, 12, 16, 20, 24]))
            output.append("px;\n}\n\n")
            output.append("*,\n*::before,\n*::after {\n  box-sizing: border-box;\n}\n\n")
            output.append("html,\nbody {\n  margin: 0;\n  padding: 0;\n  font-family: var(--font-body);\n")
            output.append("  color: var(--color-text);\n  background: var(--color-background);\n")
            output.append("  -webkit-font-smoothing: antialiased;\n}\n\n")
        }
        var pending = backgrounds
        while output.count < file.size || !pending.isEmpty {
            if !pending.isEmpty && (output.count >= file.size || random.chance(0.25)) {
                let asset = pending.removeLast()
                output.byte(46)
                output.append(contentsOf: classes[random.skewed(classes.count)])
                output.append(" {\n  background-image: url(../")
                output.append(asset.path)
                output.append(");\n")
                if asset.kind == .svg {
                    output.append("  background-repeat: no-repeat;\n  background-size: ")
                    output.decimal(asset.width)
                    output.append("px ")
                    output.decimal(asset.height)
                    output.append("px;\n")
                } else {
                    output.append("  background-size: cover;\n  background-position: center;\n")
                }
                output.append("}\n\n")
                continue
            }
            let r = random.below(24)
            if r == 0 {
                output.append("@keyframes ")
                output.append(random.pick(Vocab.keyframes))
                output.append(" {\n  from {\n    opacity: 0;\n    transform: ")
                cssValue(&output, "$transform")
                output.append(";\n  }\n  to {\n    opacity: 1;\n    transform: none;\n  }\n}\n\n")
            } else if r < 3 {
                output.append("@media (")
                output.append(random.pick(["min-width: 768px", "max-width: 375px", "min-width: 1024px", "prefers-color-scheme: dark", "prefers-reduced-motion: reduce"]))
                output.append(") {\n")
                let n = random.range(1, 4)
                for _ in 0..<n { rule(&output, level: 1) }
                output.append("}\n\n")
            } else {
                rule(&output, level: 0)
            }
        }
        return minified ? Corpus.minifyCSS(output.bytes) : output.bytes
    }
}
