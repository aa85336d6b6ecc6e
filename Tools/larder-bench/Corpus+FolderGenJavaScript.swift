import Foundation
import Glibc

extension Corpus.FolderGen {
    // MARK: JavaScript

    mutating func camel(_ capitalizeFirst: Bool) -> [UInt8] {
        var o = Out(capacity: 24)
        let verb = rng.chance(0.6)
        let first = verb ? Vocab.jsVerbs[rng.skewed(Vocab.jsVerbs.count)] : Vocab.jsNouns[rng.skewed(Vocab.jsNouns.count)]
        if capitalizeFirst { o.capitalized(first) } else { o.w(first) }
        o.capitalized(Vocab.jsNouns[rng.skewed(Vocab.jsNouns.count)])
        if rng.chance(0.25) { o.capitalized(Vocab.jsNouns[rng.below(Vocab.jsNouns.count)]) }
        return o.b
    }

    mutating func jsPools() {
        jsProps = Vocab.jsMembers
        for _ in 0..<40 { jsProps.append(camel(false)) }
        rng.shuffle(&jsProps)
        if jsMin {
            let pool = Vocab.shortNames
            jsLocals = Array(pool.prefix(24))
            jsFunctions = Array(pool.dropFirst(24).prefix(120))
            rng.shuffle(&jsFunctions)
            jsClasses = Array(jsFunctions.prefix(16))
        } else {
            jsLocals = Vocab.jsNouns.prefix(40).map { $0 }
            for _ in 0..<30 { jsLocals.append(camel(false)) }
            rng.shuffle(&jsLocals)
            jsFunctions = []
            for _ in 0..<60 { jsFunctions.append(camel(false)) }
            jsClasses = []
            for _ in 0..<10 {
                var o = Out(capacity: 32)
                o.capitalized(Vocab.jsNouns[rng.below(Vocab.jsNouns.count)])
                o.s(rng.pick(["Controller", "Store", "Service", "View", "Manager", "Tracker", "Client"]))
                jsClasses.append(o.b)
            }
        }
    }

    mutating func sp(_ o: inout Out) { if !jsMin { o.byte(32) } }
    mutating func jsIndent(_ o: inout Out, _ depth: Int) { if !jsMin { o.indent(depth) } }
    mutating func jsEnd(_ o: inout Out) { if !jsMin { o.nl() } }

    mutating func jsLocal(_ o: inout Out) { o.w(jsLocals[rng.skewed(jsLocals.count)]) }
    mutating func jsProp(_ o: inout Out) { o.w(jsProps[rng.skewed(jsProps.count)]) }

    mutating func jsString(_ o: inout Out) {
        let q: UInt8 = jsMin ? 34 : 39
        o.byte(q)
        switch rng.below(6) {
        case 0, 1: sentence(&o, 2, 8)
        case 2:
            o.s(rng.pick(Vocab.screens))
            o.byte(95)
            o.s(rng.pick(["viewed", "closed", "purchased", "selected", "started", "completed", "failed"]))
        case 3:
            o.byte(46)
            o.w(classes[rng.skewed(classes.count)])
        case 4: o.s(rng.pick(Vocab.jsEvents))
        default: o.s(rng.pick(Vocab.modifiers))
        }
        o.byte(q)
    }

    mutating func jsNumber(_ o: inout Out) {
        switch rng.below(4) {
        case 0: o.int(rng.pick([0, 1, 2, 3, 10, 100, 1000]))
        case 1: o.int(rng.pick([16, 24, 60, 300, 500, 3600, 86400]))
        case 2: price(&o)
        default: o.int(rng.range(0, 999))
        }
    }

    mutating func jsArgs(_ o: inout Out, _ depth: Int) {
        o.byte(40)
        let n = rng.range(0, 3)
        for i in 0..<n {
            if i > 0 {
                o.byte(44)
                sp(&o)
            }
            jsExpr(&o, depth + 1)
        }
        o.byte(41)
    }

    mutating func jsRef(_ o: inout Out) {
        switch rng.below(4) {
        case 0:
            o.s("this.")
            jsProp(&o)
        case 1:
            jsLocal(&o)
            o.byte(46)
            jsProp(&o)
        default:
            jsLocal(&o)
        }
    }

    mutating func jsExpr(_ o: inout Out, _ depth: Int) {
        let r = depth > 2 ? rng.below(4) : rng.below(12)
        switch r {
        case 0: jsRef(&o)
        case 1: jsNumber(&o)
        case 2: jsString(&o)
        case 3:
            jsRef(&o)
            o.byte(46)
            jsProp(&o)
        case 4:
            jsRef(&o)
            o.byte(46)
            jsProp(&o)
            jsArgs(&o, depth)
        case 5:
            if depth > 0 { o.byte(40) }
            jsExpr(&o, depth + 1)
            sp(&o)
            o.s(rng.pick(["===", "!==", "&&", "||", "+", "-", "*", ">", "<=", "??"]))
            sp(&o)
            jsExpr(&o, depth + 1)
            if depth > 0 { o.byte(41) }
        case 6:
            if depth > 0 { o.byte(40) }
            o.byte(40)
            jsLocal(&o)
            o.byte(41)
            sp(&o)
            o.s("=>")
            sp(&o)
            jsExpr(&o, 3)
            if depth > 0 { o.byte(41) }
        case 7:
            o.byte(123)
            sp(&o)
            let n = rng.range(1, 4)
            for i in 0..<n {
                if i > 0 {
                    o.byte(44)
                    sp(&o)
                }
                jsProp(&o)
                o.byte(58)
                sp(&o)
                jsExpr(&o, depth + 1)
            }
            sp(&o)
            o.byte(125)
        case 8:
            o.byte(91)
            let n = rng.range(1, 4)
            for i in 0..<n {
                if i > 0 {
                    o.byte(44)
                    sp(&o)
                }
                if rng.chance(0.5) { jsString(&o) } else { jsNumber(&o) }
            }
            o.byte(93)
        case 9:
            if depth > 0 { o.byte(40) }
            jsRef(&o)
            sp(&o)
            o.byte(63)
            sp(&o)
            jsExpr(&o, depth + 1)
            sp(&o)
            o.byte(58)
            sp(&o)
            jsExpr(&o, depth + 1)
            if depth > 0 { o.byte(41) }
        case 10:
            o.s("new ")
            o.w(rng.pick(jsClasses))
            jsArgs(&o, depth)
        default:
            o.byte(33)
            jsRef(&o)
        }
    }

    mutating func jsBlock(_ o: inout Out, _ depth: Int, _ count: Int, async: Bool) {
        for _ in 0..<count { jsStatement(&o, depth, async: async) }
    }

    mutating func jsBraced(_ o: inout Out, _ depth: Int, async: Bool, bound: [[UInt8]] = []) {
        sp(&o)
        o.byte(123)
        jsEnd(&o)
        jsScopes.append(Set(bound))
        jsBlock(&o, depth + 1, rng.range(1, 3), async: async)
        jsScopes.removeLast()
        jsIndent(&o, depth)
        o.byte(125)
    }

    /// Writes `const name = ` (or `let`/`var`) with a name not yet declared in this block.
    /// Returns false (writing nothing) when no fresh name was found.
    mutating func jsDeclare(_ o: inout Out) -> Bool {
        if jsMin {
            o.s("var ")
            jsLocal(&o)
            return true
        }
        for _ in 0..<4 {
            let name = jsLocals[rng.skewed(jsLocals.count)]
            if jsScopes.last?.contains(name) == true { continue }
            if !jsScopes.isEmpty { jsScopes[jsScopes.count - 1].insert(name) }
            o.s(rng.chance(0.75) ? "const " : "let ")
            o.w(name)
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

    mutating func jsStatement(_ o: inout Out, _ depth: Int, async: Bool) {
        jsIndent(&o, depth)
        var choice = rng.below(depth >= 4 ? 6 : 11)
        if choice <= 1 || (choice == 5 && async && !json.isEmpty) {
            if !jsDeclare(&o) { choice = 2 }
        }
        switch choice {
        case 0, 1:
            sp(&o)
            o.byte(61)
            sp(&o)
            jsExpr(&o, 0)
            o.byte(59)
        case 2:
            jsRef(&o)
            o.byte(46)
            jsProp(&o)
            sp(&o)
            o.byte(61)
            sp(&o)
            jsExpr(&o, 0)
            o.byte(59)
        case 3:
            jsRef(&o)
            o.byte(46)
            jsProp(&o)
            jsArgs(&o, 0)
            o.byte(59)
        case 4:
            o.s("logger.")
            o.s(rng.pick(["debug", "info", "warn", "error"]))
            o.byte(40)
            jsString(&o)
            o.byte(44)
            sp(&o)
            jsLocal(&o)
            o.s(");")
        case 5:
            if async && !json.isEmpty {
                sp(&o)
                o.byte(61)
                sp(&o)
                o.s("await fetch(")
                o.byte(jsMin ? 34 : 39)
                o.s(rng.pick(json).path)
                o.byte(jsMin ? 34 : 39)
                o.s(").then(")
                o.s(jsMin ? "e=>e.json()" : "(response) => response.json()")
                o.s(");")
            } else {
                o.s("return ")
                jsExpr(&o, 0)
                o.byte(59)
            }
        case 6:
            o.s("if")
            sp(&o)
            o.byte(40)
            jsExpr(&o, 1)
            o.byte(41)
            jsBraced(&o, depth, async: async)
            if rng.chance(0.35) {
                sp(&o)
                o.s("else")
                jsBraced(&o, depth, async: async)
            }
        case 7:
            o.s(jsMin ? "for(var " : "for (const ")
            jsLocal(&o)
            o.s(" of ")
            jsRef(&o)
            o.byte(41)
            jsBraced(&o, depth, async: async)
        case 8:
            o.s("try")
            jsBraced(&o, depth, async: async)
            sp(&o)
            o.s(jsMin ? "catch(e)" : "catch (error)")
            sp(&o)
            o.byte(123)
            jsEnd(&o)
            jsIndent(&o, depth + 1)
            o.s("logger.error(")
            jsString(&o)
            o.s(jsMin ? ",e);" : ", error);")
            jsEnd(&o)
            jsIndent(&o, depth)
            o.byte(125)
        case 9:
            jsRef(&o)
            o.s(".addEventListener(")
            o.byte(jsMin ? 34 : 39)
            o.s(rng.pick(Vocab.jsEvents))
            o.byte(jsMin ? 34 : 39)
            o.byte(44)
            sp(&o)
            let parameter = jsLocals[rng.skewed(jsLocals.count)]
            o.byte(40)
            o.w(parameter)
            o.byte(41)
            sp(&o)
            o.s("=>")
            jsBraced(&o, depth, async: false, bound: [parameter])
            o.s(");")
        default:
            jsRef(&o)
            sp(&o)
            o.s(rng.pick(["=", "+=", "||="]))
            sp(&o)
            jsExpr(&o, 0)
            o.byte(59)
        }
        jsEnd(&o)
    }

    mutating func jsParams(_ o: inout Out) -> [[UInt8]] {
        o.byte(40)
        let n = rng.range(0, 3)
        var names: [[UInt8]] = []
        while names.count < n {
            let name = jsLocals[rng.skewed(jsLocals.count)]
            if names.contains(name) { continue }
            if !names.isEmpty {
                o.byte(44)
                sp(&o)
            }
            o.w(name)
            names.append(name)
        }
        o.byte(41)
        return names
    }

    mutating func script(_ file: Asset, minified: Bool) -> [UInt8] {
        jsMin = minified
        jsPools()
        jsScopes = []
        jsTop = minified ? [[101], [116]] : [Array("FLOW_ID".utf8), Array("global".utf8)]
        var o = Out(capacity: file.size + 16384)
        o.s("/*! ")
        o.s(flow)
        o.s("/")
        o.s(file.path)
        o.s(" build ")
        o.hex(rng.next(), digits: 8)
        o.s(" */\n")
        if jsMin {
            o.s("!function(e,t){\"use strict\";")
        } else {
            o.s("'use strict';\n\n(function (global) {\n  const FLOW_ID = '")
            o.s(flow)
            o.s("';\n\n")
        }
        let depth = jsMin ? 0 : 1
        while o.count + 40 < file.size {
            let r = rng.below(10)
            if r < 6 {
                let async = rng.chance(0.25)
                jsIndent(&o, depth)
                if async { o.s("async ") }
                o.s("function ")
                o.w(jsUnique(rng.pick(jsFunctions)))
                let parameters = jsParams(&o)
                sp(&o)
                o.byte(123)
                jsEnd(&o)
                jsScopes = [Set(parameters)]
                jsBlock(&o, depth + 1, rng.range(2, 7), async: async)
                jsIndent(&o, depth + 1)
                o.s("return ")
                jsExpr(&o, 0)
                o.byte(59)
                jsEnd(&o)
                jsIndent(&o, depth)
                o.byte(125)
            } else if r < 8 {
                jsIndent(&o, depth)
                o.s("class ")
                o.w(jsUnique(rng.pick(jsClasses)))
                sp(&o)
                o.byte(123)
                jsEnd(&o)
                let methods = rng.range(2, 5)
                for m in 0..<methods {
                    jsIndent(&o, depth + 1)
                    if m == 0 {
                        o.s("constructor")
                    } else {
                        jsProp(&o)
                    }
                    let parameters = jsParams(&o)
                    sp(&o)
                    o.byte(123)
                    jsEnd(&o)
                    jsScopes = [Set(parameters)]
                    jsBlock(&o, depth + 2, rng.range(1, 5), async: false)
                    jsIndent(&o, depth + 1)
                    o.byte(125)
                    jsEnd(&o)
                }
                jsIndent(&o, depth)
                o.byte(125)
            } else {
                jsIndent(&o, depth)
                if jsMin {
                    o.s("var ")
                    o.w(jsUnique(rng.pick(jsFunctions)))
                } else {
                    o.s("const ")
                    let a = Vocab.jsNouns[rng.skewed(Vocab.jsNouns.count)]
                    let b = Vocab.jsNouns[rng.below(Vocab.jsNouns.count)]
                    o.w(jsUnique((a + [95] + b).map { $0 >= 97 && $0 <= 122 ? $0 - 32 : $0 }))
                }
                sp(&o)
                o.byte(61)
                sp(&o)
                o.byte(123)
                jsEnd(&o)
                let n = rng.range(3, 9)
                for i in 0..<n {
                    jsIndent(&o, depth + 1)
                    jsProp(&o)
                    o.byte(58)
                    sp(&o)
                    switch rng.below(4) {
                    case 0: jsString(&o)
                    case 1: jsNumber(&o)
                    case 2: o.s(rng.chance(0.5) ? "true" : "false")
                    default: jsExpr(&o, 2)
                    }
                    if i < n - 1 { o.byte(44) }
                    jsEnd(&o)
                }
                jsIndent(&o, depth)
                o.s("};")
            }
            jsEnd(&o)
            if !jsMin { o.nl() }
        }
        o.s(jsMin ? "}(window,document);\n" : "})(window);\n")
        return o.b
    }
}
