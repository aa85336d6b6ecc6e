import Foundation
import Glibc

extension Corpus.FolderGen {
    // MARK: HTML

    mutating func img(_ output: inout Output, _ asset: Asset, level: Int, className: Bool = true) {
        output.indent(level)
        output.append("<img")
        if className {
            output.append(" class=\"")
            cls(&output)
            output.append("\"")
        }
        output.append(" src=\"")
        output.append(asset.path)
        output.append("\" alt=\"")
        if asset.kind == .image { sentence(&output, 2, 6) }
        output.append("\" width=\"")
        output.decimal(asset.kind == .image ? min(asset.width, 1200) : asset.width)
        output.append("\" height=\"")
        output.decimal(asset.kind == .image ? asset.height * min(asset.width, 1200) / max(asset.width, 1) : asset.height)
        output.append(asset.name == "hero.jpg" ? "\">\n" : "\" loading=\"lazy\">\n")
    }

    mutating func open(_ output: inout Output, _ tag: String, level: Int) {
        output.indent(level)
        output.append("<")
        output.append(tag)
        output.append(" class=\"")
        cls(&output)
        output.append("\">")
    }

    mutating func page(_ file: Asset, isIndex: Bool, refs: [Asset]) -> [UInt8] {
        var output = Output(capacity: file.size + 8192)
        let screen = String(file.name.dropLast(5))
        output.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n")
        output.append("  <meta name=\"viewport\" content=\"width=device-width, initial-scale=1, viewport-fit=cover\">\n")
        output.append("  <meta name=\"theme-color\" content=\"")
        output.append(contentsOf: palette[0])
        output.append("\">\n  <title>")
        sentence(&output, 2, 5)
        output.append(" - ")
        output.append(flow)
        output.append("</title>\n")
        for (i, sheet) in css.enumerated() where isIndex || i == 0 || random.chance(0.5) {
            output.append("  <link rel=\"stylesheet\" href=\"")
            output.append(sheet.path)
            output.append("\">\n")
        }
        if isIndex {
            for data in json {
                output.append("  <link rel=\"preload\" href=\"")
                output.append(data.path)
                output.append("\" as=\"fetch\" crossorigin>\n")
            }
        }
        output.append("</head>\n<body class=\"screen screen--")
        output.append(screen)
        output.append("\">\n  <div id=\"app\" class=\"app\" data-flow=\"")
        output.append(flow)
        output.append("\" data-screen=\"")
        output.append(screen)
        output.append("\">\n")
        open(&output, "header", level: 2)
        output.newline()
        if let logo = svgs.first(where: { $0.name == "logo.svg" }) { img(&output, logo, level: 3) }
        if !isIndex {
            output.indent(3)
            output.append("<a class=\"")
            cls(&output)
            output.append("\" href=\"index.html\" aria-label=\"Back\">")
            sentence(&output, 1, 2)
            output.append("</a>\n")
        }
        output.indent(2)
        output.append("</header>\n")
        open(&output, "main", level: 2)
        output.newline()
        var pending = refs
        if isIndex, let hero = images.first(where: { $0.name == "hero.jpg" }) {
            open(&output, "section", level: 3)
            output.newline()
            img(&output, hero, level: 4)
            output.indent(4)
            output.append("<h1 class=\"")
            cls(&output)
            output.append("\">")
            sentence(&output, 3, 8)
            output.append("</h1>\n")
            output.indent(4)
            output.append("<p>")
            paragraph(&output, 1)
            output.append("</p>\n")
            output.indent(3)
            output.append("</section>\n")
        }
        let reserve = 600 + 90 * screens.count + 60 * js.count
        while output.count + reserve < file.size || !pending.isEmpty {
            section(&output, &pending, full: output.count + reserve >= file.size)
        }
        output.indent(2)
        output.append("</main>\n")
        open(&output, "footer", level: 2)
        output.newline()
        output.indent(3)
        output.append("<nav class=\"footer__nav\">\n")
        for target in [index] + screens where target.name != file.name {
            output.indent(4)
            output.append("<a class=\"")
            cls(&output)
            output.append("\" href=\"")
            output.append(target.name)
            output.append("\">")
            sentence(&output, 1, 3)
            output.append("</a>\n")
        }
        output.indent(3)
        output.append("</nav>\n")
        output.indent(3)
        output.append("<p class=\"legal\">")
        paragraph(&output, 2)
        output.append("</p>\n")
        output.indent(2)
        output.append("</footer>\n  </div>\n")
        for (i, script) in js.enumerated() where isIndex || i < 2 || random.chance(0.4) {
            output.append("  <script src=\"")
            output.append(script.path)
            output.append("\" defer></script>\n")
        }
        output.append("</body>\n</html>\n")
        return output.bytes
    }

    mutating func section(_ output: inout Output, _ pending: inout [Asset], full: Bool) {
        let kind = !pending.isEmpty && (full || random.chance(0.3)) ? 5 : random.below(8)
        open(&output, "section", level: 3)
        output.newline()
        switch kind {
        case 0:
            output.indent(4)
            output.append("<h2 class=\"")
            cls(&output)
            output.append("\">")
            sentence(&output, 3, 9)
            output.append("</h2>\n")
            open(&output, "p", level: 4)
            paragraph(&output, random.range(1, 3))
            output.append("</p>\n")
            output.indent(4)
            output.append("<button type=\"button\" class=\"btn btn--primary\" data-action=\"")
            output.append(random.pick(["continue", "purchase", "next", "restore", "skip"]))
            output.append("\">")
            sentence(&output, 1, 3)
            output.append("</button>\n")
        case 1:
            open(&output, "ul", level: 4)
            output.newline()
            let items = random.range(3, 7)
            for _ in 0..<items {
                open(&output, "li", level: 5)
                output.newline()
                if let i = pending.lastIndex(where: { $0.kind == .svg }) {
                    img(&output, pending.remove(at: i), level: 6, className: false)
                } else if !svgs.isEmpty {
                    img(&output, random.pick(svgs), level: 6, className: false)
                }
                output.indent(6)
                output.append("<span>")
                sentence(&output, 3, 10)
                output.append("</span>\n")
                output.indent(5)
                output.append("</li>\n")
            }
            output.indent(4)
            output.append("</ul>\n")
        case 2:
            let cards = random.range(2, 3)
            for c in 0..<cards {
                output.indent(4)
                output.append("<div class=\"plan-card")
                if c == 1 { output.append(" plan-card--featured") }
                output.append("\" data-plan-id=\"plan_")
                output.append(random.pick(["weekly", "monthly", "quarterly", "yearly", "lifetime"]))
                output.append("_")
                output.decimal(random.range(1, 12))
                output.append("\" role=\"radio\" tabindex=\"0\">\n")
                output.indent(5)
                output.append("<h3 class=\"plan-card__title\">")
                sentence(&output, 1, 3)
                output.append("</h3>\n")
                output.indent(5)
                output.append("<p class=\"plan-card__price\"><span class=\"plan-card__currency\">$</span>")
                price(&output)
                output.append("<span class=\"plan-card__period\">/ ")
                output.append(random.pick(["week", "month", "year"]))
                output.append("</span></p>\n")
                output.indent(5)
                output.append("<p class=\"plan-card__note\">")
                sentence(&output, 4, 10, end: 46)
                output.append("</p>\n")
                output.indent(4)
                output.append("</div>\n")
            }
        case 3:
            open(&output, "blockquote", level: 4)
            output.newline()
            if let i = pending.lastIndex(where: { $0.kind == .image }) {
                img(&output, pending.remove(at: i), level: 5)
            }
            output.indent(5)
            output.append("<p>")
            paragraph(&output, random.range(1, 3))
            output.append("</p>\n")
            output.indent(5)
            output.append("<cite>")
            output.append(random.pick(Vocab.names))
            output.append(" ")
            output.append(random.pick(["A.", "B.", "K.", "M.", "R.", "S.", "T."]))
            output.append("</cite>\n")
            output.indent(4)
            output.append("</blockquote>\n")
        case 4:
            let items = random.range(2, 5)
            for _ in 0..<items {
                open(&output, "details", level: 4)
                output.append("\n")
                output.indent(5)
                output.append("<summary>")
                sentence(&output, 4, 9, end: 63)
                output.append("</summary>\n")
                output.indent(5)
                output.append("<p>")
                paragraph(&output, random.range(1, 3))
                output.append("</p>\n")
                output.indent(4)
                output.append("</details>\n")
            }
        case 5:
            let count = min(pending.count, random.range(1, 4))
            for _ in 0..<count {
                open(&output, "figure", level: 4)
                output.newline()
                img(&output, pending.removeLast(), level: 5)
                output.indent(5)
                output.append("<figcaption>")
                sentence(&output, 3, 9)
                output.append("</figcaption>\n")
                output.indent(4)
                output.append("</figure>\n")
            }
        case 6:
            let options = random.range(3, 6)
            output.indent(4)
            output.append("<h2>")
            sentence(&output, 4, 9, end: 63)
            output.append("</h2>\n")
            for n in 0..<options {
                output.indent(4)
                output.append("<button type=\"button\" class=\"option\" data-answer=\"")
                output.decimal(n + 1)
                output.append("\">")
                sentence(&output, 1, 5)
                output.append("</button>\n")
            }
        default:
            open(&output, "p", level: 4)
            paragraph(&output, random.range(2, 5))
            output.append("</p>\n")
        }
        output.indent(3)
        output.append("</section>\n")
    }
}
