import Foundation
import Glibc

extension Corpus {
    /// Drops newlines and the spaces next to `{ } : ; , >`, like a CSS minifier.
    static func minifyCSS(_ input: [UInt8]) -> [UInt8] {
        func tight(_ c: UInt8) -> Bool { c == 123 || c == 125 || c == 58 || c == 59 || c == 44 || c == 62 }
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var i = 0
        while i < input.count {
            let c = input[i]
            if c == 10 || c == 32 {
                var j = i
                while j < input.count && (input[j] == 10 || input[j] == 32) { j += 1 }
                let previous = out.last ?? 10
                let next = j < input.count ? input[j] : 10
                if !(tight(previous) || tight(next) || previous == 10 || next == 10) {
                    out.append(32)
                }
                i = j
            } else {
                out.append(c)
                i += 1
            }
        }
        out.append(10)
        return out
    }
}
