import Foundation
import Glibc

extension Corpus {
    struct Asset {
        var name: String
        var dir: String
        var kind: Kind
        var size: Int
        var width = 0
        var height = 0
        var path: String { dir.isEmpty ? name : dir + "/" + name }
    }

    struct FontFace {
        var fileName: String
        var family: String
        var weight: Int
        var italic: Bool
        var source: Int?
        var size: Int
    }

    struct FolderGen {
        typealias Asset = Corpus.Asset
        typealias Output = Corpus.Output
        typealias Vocab = Corpus.Vocab

        var random: RNG
        let flow: String
        var palette: [[UInt8]] = []
        var classes: [[UInt8]] = []
        var index = Asset(name: "index.html", dir: "", kind: .html, size: 0)
        var screens: [Asset] = []
        var css: [Asset] = []
        var js: [Asset] = []
        var json: [Asset] = []
        var svgs: [Asset] = []
        var images: [Asset] = []
        var fonts: [FontFace] = []
        var fontStack: [UInt8] = []

        // JavaScript writer state
        var jsMin = false
        var jsLocals: [[UInt8]] = []
        var jsFunctions: [[UInt8]] = []
        var jsClasses: [[UInt8]] = []
        var jsProps: [[UInt8]] = []
        /// Names declared in each open block (so `const`/`let` never redeclare), and at top level.
        var jsScopes: [Set<[UInt8]>] = []
        var jsTop: Set<[UInt8]> = []

        init(flow: String, seed: UInt64) {
            self.flow = flow
            random = RNG(seed: seed)
            _ = random.next()
        }

        // MARK: plan and write

        /// Plans, generates and writes one bundle folder. Returns the font bytes written.
        mutating func build(
            budget: Int, bigVendor: Bool, fonts library: FontLibrary, fontAllowance: Double, sink: inout Sink
        ) throws -> Int {
            makePalette()
            makeClasses()
            let text = Int(Double(budget) * (0.33 + 0.04 * random.unit()))

            let screenCount = random.range(2, 5)
            screens = random.sample(Vocab.screens, screenCount).map { Asset(name: $0 + ".html", dir: "", kind: .html, size: 0) }
            let cssCount = random.range(0, 2)
            css = (["app.css"] + random.sample(Vocab.extraCSS, cssCount)).map { Asset(name: $0, dir: "css", kind: .css, size: 0) }
            let jsCount = random.range(0, 3)
            js = (["app.js", "vendor.js"] + random.sample(Vocab.extraJS, jsCount)).map { Asset(name: $0, dir: "js", kind: .js, size: 0) }
            let jsonCount = random.range(1, 3)
            json = (["config.json", "strings.json"] + random.sample(Vocab.extraJSON, jsonCount)).map {
                Asset(name: $0, dir: "data", kind: .json, size: 0)
            }
            let svgCount = random.range(2, 8)
            svgs = (["logo.svg"] + random.sample(Vocab.svgNames, svgCount)).map { Asset(name: $0, dir: "img", kind: .svg, size: 0) }

            // Text budgets.
            var vendorSize = 0
            var rest = text
            if bigVendor {
                vendorSize = min(1_000_000, max(600_000, Int(Double(text) * 0.7)))
                rest = max(text - vendorSize, text / 4)
            }
            var shares = [0.13, 0.15, 0.44, 0.18, 0.10]
            for i in shares.indices { shares[i] *= 0.8 + 0.4 * random.unit() }
            let shareSum = shares.reduce(0, +)
            func part(_ i: Int) -> Int { Int(Double(rest) * shares[i] / shareSum) }
            let htmlSizes = split(part(0), [2.5] + screens.map { _ in 1.0 }, minimum: 1500)
            index.size = htmlSizes[0]
            for i in screens.indices { screens[i].size = htmlSizes[i + 1] }
            let cssSizes = split(part(1), [3.0] + css.dropFirst().map { _ in 1.0 }, minimum: 600)
            for i in css.indices { css[i].size = cssSizes[i] }
            let jsSizes = split(part(2), [3.0, bigVendor ? 0.0001 : 2.5] + js.dropFirst(2).map { _ in 1.0 }, minimum: 800)
            for i in js.indices { js[i].size = jsSizes[i] }
            if bigVendor { js[1].size = vendorSize }
            let jsonSizes = split(part(3), [1.5, 1.2] + json.dropFirst(2).map { _ in 1.0 }, minimum: 300)
            for i in json.indices { json[i].size = jsonSizes[i] }
            let svgWeights = svgs.map { s -> Double in
                s.name == "logo.svg" ? 2 : (s.name.hasPrefix("icon") ? 0.6 : 6)
            }
            let svgSizes = split(part(4), svgWeights, minimum: 300)
            for i in svgs.indices {
                svgs[i].size = svgSizes[i]
                let n = svgs[i].name
                if n == "logo.svg" {
                    (svgs[i].width, svgs[i].height) = (120, 32)
                } else if n.hasPrefix("icon") {
                    (svgs[i].width, svgs[i].height) = (24, 24)
                } else if n.hasPrefix("badge") {
                    (svgs[i].width, svgs[i].height) = (96, 32)
                } else if n.hasPrefix("pattern") {
                    (svgs[i].width, svgs[i].height) = (64, 64)
                } else {
                    (svgs[i].width, svgs[i].height) = (320, 240)
                }
            }

            // Fonts, carrying the corpus-wide font share from folder to folder.
            let fontBudget = Corpus.fontShare * Double(budget)
            if library.entries.isEmpty || fontBudget < 0.5 * Double(library.smallestSize) {
                let count = max(1, min(3, Int(fontBudget / 200_000)))
                let each = max(4096, Int(max(fontAllowance, fontBudget) / Double(count)))
                let styles: [(String, Int, Bool)] = [("regular", 400, false), ("bold", 700, false), ("italic", 400, true)]
                for i in 0..<count {
                    fonts.append(
                        FontFace(
                            fileName: "synth-sans-\(styles[i].0).ttf", family: "Synth Sans", weight: styles[i].1,
                            italic: styles[i].2, source: nil, size: each))
                }
            } else {
                // A folder may run somewhat into debt (later folders pay it back), so that big
                // families such as Lato show up as well as the small ones.
                let ceiling = fontAllowance + 0.2 * Double(budget) + 150_000
                func smallest(_ family: [Int]) -> Double {
                    Double(family.map { library.entries[$0].size }.min() ?? 0)
                }
                var family = library.families[random.below(library.families.count)]
                for _ in 0..<8 where smallest(family) > ceiling {
                    family = library.families[random.below(library.families.count)]
                }
                if smallest(family) > ceiling { family = library.families[library.smallestFamily] }
                random.shuffle(&family)
                let first = family.firstIndex { Double(library.entries[$0].size) <= ceiling }
                    ?? family.indices.min { library.entries[family[$0]].size < library.entries[family[$1]].size }!
                family.swapAt(0, first)
                var remaining = fontAllowance
                for i in family {
                    let e = library.entries[i]
                    if fonts.isEmpty || remaining >= Double(e.size) * 0.5 {
                        fonts.append(
                            FontFace(
                                fileName: e.fileName, family: e.family, weight: e.weight, italic: e.italic,
                                source: i, size: e.size))
                        remaining -= Double(e.size)
                    }
                    if fonts.count >= 4 { break }
                }
            }
            let fontBytes = fonts.reduce(0) { $0 + $1.size }
            fontStack = Array("\"\(fonts[0].family)\", -apple-system, BlinkMacSystemFont, \"Segoe UI\", Roboto, sans-serif".utf8)

            // Images fill the rest of the folder.
            let imageBudget = max(6000, budget - text - fontBytes)
            planImages(imageBudget)

            // Who references what: every image/SVG is reached from index.html or from a stylesheet.
            var indexRefs: [Asset] = []
            var cssRefs = [[Asset]](repeating: [], count: css.count)
            for asset in images + svgs where asset.name != "logo.svg" && asset.name != "hero.jpg" {
                if random.chance(0.55) {
                    indexRefs.append(asset)
                } else {
                    cssRefs[random.below(css.count)].append(asset)
                }
            }
            random.shuffle(&indexRefs)

            // Write everything.
            try sink.makeDirectory(flow)
            for sub in ["css", "js", "data", "img", "fonts"] { try sink.makeDirectory(flow + "/" + sub) }
            var written = 0
            for face in fonts {
                let bytes: [UInt8]
                if let source = face.source {
                    bytes = try library.bytes(of: source)
                } else {
                    bytes = Corpus.makeSyntheticFont(size: face.size, family: face.family, random: &random)
                }
                written += bytes.count
                try sink.write(flow + "/fonts/" + face.fileName, .font, bytes)
            }
            for image in images {
                let bytes = image.name.hasSuffix(".png")
                    ? Corpus.makePNG(size: image.size, width: image.width, height: image.height, random: &random)
                    : Corpus.makeJPEG(size: image.size, width: image.width, height: image.height, random: &random)
                try sink.write(flow + "/" + image.path, .image, bytes)
            }
            for file in svgs { try sink.write(flow + "/" + file.path, .svg, svgFile(file)) }
            for file in json { try sink.write(flow + "/" + file.path, .json, jsonFile(file)) }
            for (i, file) in js.enumerated() {
                try sink.write(flow + "/" + file.path, .js, script(file, minified: i == 1 || file.name == "polyfills.js"))
            }
            for (i, file) in css.enumerated() {
                try sink.write(flow + "/" + file.path, .css, stylesheet(file, isMain: i == 0, backgrounds: cssRefs[i]))
            }
            try sink.write(flow + "/index.html", .html, page(index, isIndex: true, refs: indexRefs))
            for screen in screens {
                var refs: [Asset] = []
                let extra = random.range(0, 4)
                for _ in 0..<extra {
                    let pool = random.chance(0.6) ? images : svgs
                    if !pool.isEmpty { refs.append(random.pick(pool)) }
                }
                try sink.write(flow + "/" + screen.name, .html, page(screen, isIndex: false, refs: refs))
            }
            return written
        }

        mutating func split(_ total: Int, _ weights: [Double], minimum: Int) -> [Int] {
            var w = weights
            for i in w.indices { w[i] *= 0.7 + 0.6 * random.unit() }
            let sum = max(w.reduce(0, +), 1e-9)
            return w.map { max(minimum, Int(Double(total) * $0 / sum)) }
        }

        mutating func makePalette() {
            palette = random.sample(Vocab.colors, random.range(5, 8)).map { Array($0.utf8) }
            let extra = random.range(3, 6)
            for _ in 0..<extra {
                var output = Output(capacity: 7)
                output.byte(35)
                output.hex(random.next(), digits: 6)
                palette.append(output.bytes)
            }
        }

        mutating func makeClasses() {
            let blockCount = random.range(10, 18)
            let blocks = random.sample(Vocab.blocks, blockCount)
            for block in blocks {
                classes.append(Array(block.utf8))
                let elementCount = random.range(2, 5)
                for element in random.sample(Vocab.elements, elementCount) {
                    classes.append(Array("\(block)__\(element)".utf8))
                    if random.chance(0.2) {
                        classes.append(Array("\(block)__\(element)--\(random.pick(Vocab.modifiers))".utf8))
                    }
                }
                let modifierCount = random.range(0, 3)
                for modifier in random.sample(Vocab.modifiers, modifierCount) {
                    classes.append(Array("\(block)--\(modifier)".utf8))
                }
            }
            random.shuffle(&classes)
        }

        mutating func planImages(_ budget: Int) {
            var counters: [String: Int] = [:]
            var heroFraction = 0.15 + 0.25 * random.unit()
            if random.chance(0.15) { heroFraction = 0.5 + 0.2 * random.unit() }
            var hero = Asset(
                name: "hero.jpg", dir: "img", kind: .image,
                size: min(1_000_000, max(1500, Int(Double(budget) * heroFraction))))
            var rest = budget - hero.size
            var others: [Asset] = []
            while rest > 0 {
                if rest < 1500 {
                    hero.size += rest
                    break
                }
                let png = random.chance(0.5)
                let minSize = png ? 400 : 1200
                var size = random.logUniform(minSize, 450_000)
                if rest - size < 1500 { size = rest }
                let base = png ? random.pick(Vocab.pngBases) : random.pick(Vocab.jpgBases)
                let n = counters[base, default: 0] + 1
                counters[base] = n
                others.append(Asset(name: "\(base)-\(n).\(png ? "png" : "jpg")", dir: "img", kind: .image, size: size))
                rest -= size
            }
            images = [hero] + others
            let aspects = [1.0, 4.0 / 3.0, 1.5, 16.0 / 9.0, 0.75, 9.0 / 16.0, 2.0]
            for i in images.indices {
                let png = images[i].name.hasSuffix(".png")
                let pixels = Double(images[i].size) * (png ? 0.6 : 7.0)
                let aspect = random.pick(aspects)
                let w = max(1, Int((pixels * aspect).squareRoot()))
                images[i].width = w
                images[i].height = max(1, Int(pixels / Double(w)))
            }
        }

    }
}
