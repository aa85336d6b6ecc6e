import Foundation
import Glibc

extension Corpus.FolderGen {
    // MARK: JavaScript

    mutating func camel(_ capitalizeFirst: Bool) -> [UInt8] {
        var output = Output(capacity: 24)
        let verb = random.chance(0.6)
        let first = verb ? Vocab.jsVerbs[random.skewed(Vocab.jsVerbs.count)] : Vocab.jsNouns[random.skewed(Vocab.jsNouns.count)]
        if capitalizeFirst { output.capitalized(first) } else { output.append(contentsOf: first) }
        output.capitalized(Vocab.jsNouns[random.skewed(Vocab.jsNouns.count)])
        if random.chance(0.25) { output.capitalized(Vocab.jsNouns[random.below(Vocab.jsNouns.count)]) }
        return output.bytes
    }

    mutating func jsPools() {
        jsProps = Vocab.jsMembers
        for _ in 0..<40 { jsProps.append(camel(false)) }
        random.shuffle(&jsProps)
        if jsMin {
            let pool = Vocab.shortNames
            jsLocals = Array(pool.prefix(24))
            jsFunctions = Array(pool.dropFirst(24).prefix(120))
            random.shuffle(&jsFunctions)
            jsClasses = Array(jsFunctions.prefix(16))
        } else {
            jsLocals = Vocab.jsNouns.prefix(40).map { $0 }
            for _ in 0..<30 { jsLocals.append(camel(false)) }
            random.shuffle(&jsLocals)
            jsFunctions = []
            for _ in 0..<60 { jsFunctions.append(camel(false)) }
            jsClasses = []
            for _ in 0..<10 {
                var output = Output(capacity: 32)
                output.capitalized(Vocab.jsNouns[random.below(Vocab.jsNouns.count)])
                output.append(random.pick(["Controller", "Store", "Service", "View", "Manager", "Tracker", "Client"]))
                jsClasses.append(output.bytes)
            }
        }
    }

    mutating func sp(_ output: inout Output) { if !jsMin { output.byte(32) } }
    mutating func jsIndent(_ output: inout Output, _ depth: Int) { if !jsMin { output.indent(depth) } }
    mutating func jsEnd(_ output: inout Output) { if !jsMin { output.newline() } }

    mutating func jsLocal(_ output: inout Output) { output.append(contentsOf: jsLocals[random.skewed(jsLocals.count)]) }
    mutating func jsProp(_ output: inout Output) { output.append(contentsOf: jsProps[random.skewed(jsProps.count)]) }

    mutating func jsString(_ output: inout Output) {
        let q: UInt8 = jsMin ? 34 : 39
        output.byte(q)
        switch random.below(6) {
        case 0, 1: sentence(&output, 2, 8)
        case 2:
            output.append(random.pick(Vocab.screens))
            output.byte(95)
            output.append(random.pick(["viewed", "closed", "purchased", "selected", "started", "completed", "failed"]))
        case 3:
            output.byte(46)
            output.append(contentsOf: classes[random.skewed(classes.count)])
        case 4: output.append(random.pick(Vocab.jsEvents))
        default: output.append(random.pick(Vocab.modifiers))
        }
        output.byte(q)
    }

    mutating func jsNumber(_ output: inout Output) {
        switch random.below(4) {
        case 0: output.decimal(random.pick([0, 1, 2, 3, 10, 100, 1000]))
        case 1: output.decimal(random.pick([16, 24, 60, 300, 500, 3600, 86400]))
        case 2: price(&output)
        default: output.decimal(random.range(0, 999))
        }
    }

    mutating func jsArgs(_ output: inout Output, _ depth: Int) {
        output.byte(40)
        let n = random.range(0, 3)
        for i in 0..<n {
            if i > 0 {
                output.byte(44)
                sp(&output)
            }
            jsExpr(&output, depth + 1)
        }
        output.byte(41)
    }

    mutating func jsRef(_ output: inout Output) {
        switch random.below(4) {
        case 0:
            output.append("this.")
            jsProp(&output)
        case 1:
            jsLocal(&output)
            output.byte(46)
            jsProp(&output)
        default:
            jsLocal(&output)
        }
    }

    mutating func jsExpr(_ output: inout Output, _ depth: Int) {
        let r = depth > 2 ? random.below(4) : random.below(12)
        switch r {
        case 0: jsRef(&output)
        case 1: jsNumber(&output)
        case 2: jsString(&output)
        case 3:
            jsRef(&output)
            output.byte(46)
            jsProp(&output)
        case 4:
            jsRef(&output)
            output.byte(46)
            jsProp(&output)
            jsArgs(&output, depth)
        case 5:
            if depth > 0 { output.byte(40) }
            jsExpr(&output, depth + 1)
            sp(&output)
            output.append(random.pick(["===", "!==", "&&", "||", "+", "-", "*", ">", "<=", "??"]))
            sp(&output)
            jsExpr(&output, depth + 1)
            if depth > 0 { output.byte(41) }
        case 6:
            if depth > 0 { output.byte(40) }
            output.byte(40)
            jsLocal(&output)
            output.byte(41)
            sp(&output)
            output.append("=>")
            sp(&output)
            jsExpr(&output, 3)
            if depth > 0 { output.byte(41) }
        case 7:
            output.byte(123)
            sp(&output)
            let n = random.range(1, 4)
            for i in 0..<n {
                if i > 0 {
                    output.byte(44)
                    sp(&output)
                }
                jsProp(&output)
                output.byte(58)
                sp(&output)
                jsExpr(&output, depth + 1)
            }
            sp(&output)
            output.byte(125)
        case 8:
            output.byte(91)
            let n = random.range(1, 4)
            for i in 0..<n {
                if i > 0 {
                    output.byte(44)
                    sp(&output)
                }
                if random.chance(0.5) { jsString(&output) } else { jsNumber(&output) }
            }
            output.byte(93)
        case 9:
            if depth > 0 { output.byte(40) }
            jsRef(&output)
            sp(&output)
            output.byte(63)
            sp(&output)
            jsExpr(&output, depth + 1)
            sp(&output)
            output.byte(58)
            sp(&output)
            jsExpr(&output, depth + 1)
            if depth > 0 { output.byte(41) }
        case 10:
            output.append("new ")
            output.append(contentsOf: random.pick(jsClasses))
            jsArgs(&output, depth)
        default:
            output.byte(33)
            jsRef(&output)
        }
    }

    mutating func jsBlock(_ output: inout Output, _ depth: Int, _ count: Int, async: Bool) {
        for _ in 0..<count { jsStatement(&output, depth, async: async) }
    }

    mutating func jsBraced(_ output: inout Output, _ depth: Int, async: Bool, bound: [[UInt8]] = []) {
        sp(&output)
        output.byte(123)
        jsEnd(&output)
        jsScopes.append(Set(bound))
        jsBlock(&output, depth + 1, random.range(1, 3), async: async)
        jsScopes.removeLast()
        jsIndent(&output, depth)
        output.byte(125)
    }

    /// Writes `const name = ` (or `let`/`var`) with a name not yet declared in this block.
    /// Returns false (writing nothing) when no fresh name was found.
    mutating func jsDeclare(_ output: inout Output) -> Bool {
        if jsMin {
            output.append("var ")
            jsLocal(&output)
            return true
        }
        for _ in 0..<4 {
            let name = jsLocals[random.skewed(jsLocals.count)]
            if jsScopes.last?.contains(name) == true { continue }
            if !jsScopes.isEmpty { jsScopes[jsScopes.count - 1].insert(name) }
            output.append(random.chance(0.75) ? "const " : "let ")
            output.append(contentsOf: name)
            return true
        }
        return false
    }

    /// A top-level name that is unique in the file (class/const names must not clash).
    mutating func jsUnique(_ base: [UInt8]) -> [UInt8] {
        var name = base
        var n = 2
        while jsTop.contains(name) {
            name = base + Array(String(n).utf8)
            n += 1
        }
        jsTop.insert(name)
        return name
    }

    mutating func jsStatement(_ output: inout Output, _ depth: Int, async: Bool) {
        jsIndent(&output, depth)
        var choice = random.below(depth >= 4 ? 6 : 11)
        if choice <= 1 || (choice == 5 && async && !json.isEmpty) {
            if !jsDeclare(&output) { choice = 2 }
        }
        switch choice {
        case 0, 1:
            sp(&output)
            output.byte(61)
            sp(&output)
            jsExpr(&output, 0)
            output.byte(59)
        case 2:
            jsRef(&output)
            output.byte(46)
            jsProp(&output)
            sp(&output)
            output.byte(61)
            sp(&output)
            jsExpr(&output, 0)
            output.byte(59)
        case 3:
            jsRef(&output)
            output.byte(46)
            jsProp(&output)
            jsArgs(&output, 0)
            output.byte(59)
        case 4:
            output.append("logger.")
            output.append(random.pick(["debug", "info", "warn", "error"]))
            output.byte(40)
            jsString(&output)
            output.byte(44)
            sp(&output)
            jsLocal(&output)
            output.append(");")
        case 5:
            if async && !json.isEmpty {
                sp(&output)
                output.byte(61)
                sp(&output)
                output.append("await fetch(")
                output.byte(jsMin ? 34 : 39)
                output.append(random.pick(json).path)
                output.byte(jsMin ? 34 : 39)
                output.append(").then(")
                output.append(jsMin ? "e=>e.json()" : "(response) => response.json()")
                output.append(");")
            } else {
                output.append("return ")
                jsExpr(&output, 0)
                output.byte(59)
            }
        case 6:
            output.append("if")
            sp(&output)
            output.byte(40)
            jsExpr(&output, 1)
            output.byte(41)
            jsBraced(&output, depth, async: async)
            if random.chance(0.35) {
                sp(&output)
                output.append("else")
                jsBraced(&output, depth, async: async)
            }
        case 7:
            output.append(jsMin ? "for(var " : "for (const ")
            jsLocal(&output)
            output.append(" of ")
            jsRef(&output)
            output.byte(41)
            jsBraced(&output, depth, async: async)
        case 8:
            output.append("try")
            jsBraced(&output, depth, async: async)
            sp(&output)
            output.append(jsMin ? "catch(e)" : "catch (error)")
            sp(&output)
            output.byte(123)
            jsEnd(&output)
            jsIndent(&output, depth + 1)
            output.append("logger.error(")
            jsString(&output)
            output.append(jsMin ? ",e);" : ", error);")
            jsEnd(&output)
            jsIndent(&output, depth)
            output.byte(125)
        case 9:
            jsRef(&output)
            output.append(".addEventListener(")
            output.byte(jsMin ? 34 : 39)
            output.append(random.pick(Vocab.jsEvents))
            output.byte(jsMin ? 34 : 39)
            output.byte(44)
            sp(&output)
            let parameter = jsLocals[random.skewed(jsLocals.count)]
            output.byte(40)
            output.append(contentsOf: parameter)
            output.byte(41)
            sp(&output)
            output.append("=>")
            jsBraced(&output, depth, async: false, bound: [parameter])
            output.append(");")
        default:
            jsRef(&output)
            sp(&output)
            output.append(random.pick(["=", "+=", "||="]))
            sp(&output)
            jsExpr(&output, 0)
            output.byte(59)
        }
        jsEnd(&output)
    }

    mutating func jsParams(_ output: inout Output) -> [[UInt8]] {
        output.byte(40)
        let n = random.range(0, 3)
        var names: [[UInt8]] = []
        while names.count < n {
            let name = jsLocals[random.skewed(jsLocals.count)]
            if names.contains(name) { continue }
            if !names.isEmpty {
                output.byte(44)
                sp(&output)
            }
            output.append(contentsOf: name)
            names.append(name)
        }
        output.byte(41)
        return names
    }

    mutating func script(_ file: Asset, minified: Bool) -> [UInt8] {
        jsMin = minified
        jsPools()
        jsScopes = []
        jsTop = minified ? [[101], [116]] : [Array("FLOW_ID".utf8), Array("global".utf8)]
        var output = Output(capacity: file.size + 16384)
        output.append("/*! ")
        output.append(flow)
        output.append("/")
        output.append(file.path)
        output.append(" build ")
        output.hex(random.next(), digits: 8)
        output.append(" */\n")
        if jsMin {
            output.append("!function(e,t){\"use strict\";")
        } else {
            output.append("'use strict';\n\n(function (global) {\n  const FLOW_ID = '")
            output.append(flow)
            output.append("';\n\n")
        }
        let depth = jsMin ? 0 : 1
        while output.count + 40 < file.size {
            let r = random.below(10)
            if r < 6 {
                let async = random.chance(0.25)
                jsIndent(&output, depth)
                if async { output.append("async ") }
                output.append("function ")
                output.append(contentsOf: jsUnique(random.pick(jsFunctions)))
                let parameters = jsParams(&output)
                sp(&output)
                output.byte(123)
                jsEnd(&output)
                jsScopes = [Set(parameters)]
                jsBlock(&output, depth + 1, random.range(2, 7), async: async)
                jsIndent(&output, depth + 1)
                output.append("return ")
                jsExpr(&output, 0)
                output.byte(59)
                jsEnd(&output)
                jsIndent(&output, depth)
                output.byte(125)
            } else if r < 8 {
                jsIndent(&output, depth)
                output.append("class ")
                output.append(contentsOf: jsUnique(random.pick(jsClasses)))
                sp(&output)
                output.byte(123)
                jsEnd(&output)
                let methods = random.range(2, 5)
                for m in 0..<methods {
                    jsIndent(&output, depth + 1)
                    if m == 0 {
                        output.append("constructor")
                    } else {
                        jsProp(&output)
                    }
                    let parameters = jsParams(&output)
                    sp(&output)
                    output.byte(123)
                    jsEnd(&output)
                    jsScopes = [Set(parameters)]
                    jsBlock(&output, depth + 2, random.range(1, 5), async: false)
                    jsIndent(&output, depth + 1)
                    output.byte(125)
                    jsEnd(&output)
                }
                jsIndent(&output, depth)
                output.byte(125)
            } else {
                jsIndent(&output, depth)
                if jsMin {
                    output.append("var ")
                    output.append(contentsOf: jsUnique(random.pick(jsFunctions)))
                } else {
                    output.append("const ")
                    let a = Vocab.jsNouns[random.skewed(Vocab.jsNouns.count)]
                    let b = Vocab.jsNouns[random.below(Vocab.jsNouns.count)]
                    output.append(contentsOf: jsUnique((a + [95] + b).map { $0 >= 97 && $0 <= 122 ? $0 - 32 : $0 }))
                }
                sp(&output)
                output.byte(61)
                sp(&output)
                output.byte(123)
                jsEnd(&output)
                let n = random.range(3, 9)
                for i in 0..<n {
                    jsIndent(&output, depth + 1)
                    jsProp(&output)
                    output.byte(58)
                    sp(&output)
                    switch random.below(4) {
                    case 0: jsString(&output)
                    case 1: jsNumber(&output)
                    case 2: output.append(random.chance(0.5) ? "true" : "false")
                    default: jsExpr(&output, 2)
                    }
                    if i < n - 1 { output.byte(44) }
                    jsEnd(&output)
                }
                jsIndent(&output, depth)
                output.append("};")
            }
            jsEnd(&output)
            if !jsMin { output.newline() }
        }
        output.append(jsMin ? "}(window,document);\n" : "})(window);\n")
        return output.bytes
    }
}
