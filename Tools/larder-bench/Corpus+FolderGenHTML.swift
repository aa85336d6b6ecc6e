import Foundation
import Glibc

extension Corpus.FolderGen {
    // MARK: HTML

    mutating func img(_ o: inout Out, _ asset: Asset, level: Int, className: Bool = true) {
        o.indent(level)
        o.s("<img")
        if className {
            o.s(" class=\"")
            cls(&o)
            o.s("\"")
        }
        o.s(" src=\"")
        o.s(asset.path)
        o.s("\" alt=\"")
        if asset.kind == .image { sentence(&o, 2, 6) }
        o.s("\" width=\"")
        o.int(asset.kind == .image ? min(asset.width, 1200) : asset.width)
        o.s("\" height=\"")
        o.int(asset.kind == .image ? asset.height * min(asset.width, 1200) / max(asset.width, 1) : asset.height)
        o.s(asset.name == "hero.jpg" ? "\">\n" : "\" loading=\"lazy\">\n")
    }

    mutating func open(_ o: inout Out, _ tag: String, level: Int) {
        o.indent(level)
        o.s("<")
        o.s(tag)
        o.s(" class=\"")
        cls(&o)
        o.s("\">")
    }

    mutating func page(_ file: Asset, isIndex: Bool, refs: [Asset]) -> [UInt8] {
        var o = Out(capacity: file.size + 8192)
        let screen = String(file.name.dropLast(5))
        o.s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n")
        o.s("  <meta name=\"viewport\" content=\"width=device-width, initial-scale=1, viewport-fit=cover\">\n")
        o.s("  <meta name=\"theme-color\" content=\"")
        o.w(palette[0])
        o.s("\">\n  <title>")
        sentence(&o, 2, 5)
        o.s(" - ")
        o.s(flow)
        o.s("</title>\n")
        for (i, sheet) in css.enumerated() where isIndex || i == 0 || rng.chance(0.5) {
            o.s("  <link rel=\"stylesheet\" href=\"")
            o.s(sheet.path)
            o.s("\">\n")
        }
        if isIndex {
            for data in json {
                o.s("  <link rel=\"preload\" href=\"")
                o.s(data.path)
                o.s("\" as=\"fetch\" crossorigin>\n")
            }
        }
        o.s("</head>\n<body class=\"screen screen--")
        o.s(screen)
        o.s("\">\n  <div id=\"app\" class=\"app\" data-flow=\"")
        o.s(flow)
        o.s("\" data-screen=\"")
        o.s(screen)
        o.s("\">\n")
        open(&o, "header", level: 2)
        o.nl()
        if let logo = svgs.first(where: { $0.name == "logo.svg" }) { img(&o, logo, level: 3) }
        if !isIndex {
            o.indent(3)
            o.s("<a class=\"")
            cls(&o)
            o.s("\" href=\"index.html\" aria-label=\"Back\">")
            sentence(&o, 1, 2)
            o.s("</a>\n")
        }
        o.indent(2)
        o.s("</header>\n")
        open(&o, "main", level: 2)
        o.nl()
        var pending = refs
        if isIndex, let hero = images.first(where: { $0.name == "hero.jpg" }) {
            open(&o, "section", level: 3)
            o.nl()
            img(&o, hero, level: 4)
            o.indent(4)
            o.s("<h1 class=\"")
            cls(&o)
            o.s("\">")
            sentence(&o, 3, 8)
            o.s("</h1>\n")
            o.indent(4)
            o.s("<p>")
            paragraph(&o, 1)
            o.s("</p>\n")
            o.indent(3)
            o.s("</section>\n")
        }
        let reserve = 600 + 90 * screens.count + 60 * js.count
        while o.count + reserve < file.size || !pending.isEmpty {
            section(&o, &pending, full: o.count + reserve >= file.size)
        }
        o.indent(2)
        o.s("</main>\n")
        open(&o, "footer", level: 2)
        o.nl()
        o.indent(3)
        o.s("<nav class=\"footer__nav\">\n")
        for target in [index] + screens where target.name != file.name {
            o.indent(4)
            o.s("<a class=\"")
            cls(&o)
            o.s("\" href=\"")
            o.s(target.name)
            o.s("\">")
            sentence(&o, 1, 3)
            o.s("</a>\n")
        }
        o.indent(3)
        o.s("</nav>\n")
        o.indent(3)
        o.s("<p class=\"legal\">")
        paragraph(&o, 2)
        o.s("</p>\n")
        o.indent(2)
        o.s("</footer>\n  </div>\n")
        for (i, script) in js.enumerated() where isIndex || i < 2 || rng.chance(0.4) {
            o.s("  <script src=\"")
            o.s(script.path)
            o.s("\" defer></script>\n")
        }
        o.s("</body>\n</html>\n")
        return o.b
    }

    mutating func section(_ o: inout Out, _ pending: inout [Asset], full: Bool) {
        let kind = !pending.isEmpty && (full || rng.chance(0.3)) ? 5 : rng.below(8)
        open(&o, "section", level: 3)
        o.nl()
        switch kind {
        case 0:
            o.indent(4)
            o.s("<h2 class=\"")
            cls(&o)
            o.s("\">")
            sentence(&o, 3, 9)
            o.s("</h2>\n")
            open(&o, "p", level: 4)
            paragraph(&o, rng.range(1, 3))
            o.s("</p>\n")
            o.indent(4)
            o.s("<button type=\"button\" class=\"btn btn--primary\" data-action=\"")
            o.s(rng.pick(["continue", "purchase", "next", "restore", "skip"]))
            o.s("\">")
            sentence(&o, 1, 3)
            o.s("</button>\n")
        case 1:
            open(&o, "ul", level: 4)
            o.nl()
            let items = rng.range(3, 7)
            for _ in 0..<items {
                open(&o, "li", level: 5)
                o.nl()
                if let i = pending.lastIndex(where: { $0.kind == .svg }) {
                    img(&o, pending.remove(at: i), level: 6, className: false)
                } else if !svgs.isEmpty {
                    img(&o, rng.pick(svgs), level: 6, className: false)
                }
                o.indent(6)
                o.s("<span>")
                sentence(&o, 3, 10)
                o.s("</span>\n")
                o.indent(5)
                o.s("</li>\n")
            }
            o.indent(4)
            o.s("</ul>\n")
        case 2:
            let cards = rng.range(2, 3)
            for c in 0..<cards {
                o.indent(4)
                o.s("<div class=\"plan-card")
                if c == 1 { o.s(" plan-card--featured") }
                o.s("\" data-plan-id=\"plan_")
                o.s(rng.pick(["weekly", "monthly", "quarterly", "yearly", "lifetime"]))
                o.s("_")
                o.int(rng.range(1, 12))
                o.s("\" role=\"radio\" tabindex=\"0\">\n")
                o.indent(5)
                o.s("<h3 class=\"plan-card__title\">")
                sentence(&o, 1, 3)
                o.s("</h3>\n")
                o.indent(5)
                o.s("<p class=\"plan-card__price\"><span class=\"plan-card__currency\">$</span>")
                price(&o)
                o.s("<span class=\"plan-card__period\">/ ")
                o.s(rng.pick(["week", "month", "year"]))
                o.s("</span></p>\n")
                o.indent(5)
                o.s("<p class=\"plan-card__note\">")
                sentence(&o, 4, 10, end: 46)
                o.s("</p>\n")
                o.indent(4)
                o.s("</div>\n")
            }
        case 3:
            open(&o, "blockquote", level: 4)
            o.nl()
            if let i = pending.lastIndex(where: { $0.kind == .image }) {
                img(&o, pending.remove(at: i), level: 5)
            }
            o.indent(5)
            o.s("<p>")
            paragraph(&o, rng.range(1, 3))
            o.s("</p>\n")
            o.indent(5)
            o.s("<cite>")
            o.s(rng.pick(Vocab.names))
            o.s(" ")
            o.s(rng.pick(["A.", "B.", "K.", "M.", "R.", "S.", "T."]))
            o.s("</cite>\n")
            o.indent(4)
            o.s("</blockquote>\n")
        case 4:
            let items = rng.range(2, 5)
            for _ in 0..<items {
                open(&o, "details", level: 4)
                o.s("\n")
                o.indent(5)
                o.s("<summary>")
                sentence(&o, 4, 9, end: 63)
                o.s("</summary>\n")
                o.indent(5)
                o.s("<p>")
                paragraph(&o, rng.range(1, 3))
                o.s("</p>\n")
                o.indent(4)
                o.s("</details>\n")
            }
        case 5:
            let count = min(pending.count, rng.range(1, 4))
            for _ in 0..<count {
                open(&o, "figure", level: 4)
                o.nl()
                img(&o, pending.removeLast(), level: 5)
                o.indent(5)
                o.s("<figcaption>")
                sentence(&o, 3, 9)
                o.s("</figcaption>\n")
                o.indent(4)
                o.s("</figure>\n")
            }
        case 6:
            let options = rng.range(3, 6)
            o.indent(4)
            o.s("<h2>")
            sentence(&o, 4, 9, end: 63)
            o.s("</h2>\n")
            for n in 0..<options {
                o.indent(4)
                o.s("<button type=\"button\" class=\"option\" data-answer=\"")
                o.int(n + 1)
                o.s("\">")
                sentence(&o, 1, 5)
                o.s("</button>\n")
            }
        default:
            open(&o, "p", level: 4)
            paragraph(&o, rng.range(2, 5))
            o.s("</p>\n")
        }
        o.indent(3)
        o.s("</section>\n")
    }
}
