import Foundation
import Glibc

extension Corpus.FolderGen {
    // MARK: prose

    mutating func sentence(_ o: inout Out, _ minWords: Int, _ maxWords: Int, end: UInt8? = nil) {
        let n = rng.range(minWords, maxWords)
        for i in 0..<n {
            let word = Vocab.words[rng.skewed(Vocab.words.count)]
            if i == 0 {
                o.capitalized(word)
            } else {
                o.byte(32)
                o.w(word)
                if i < n - 1 && rng.chance(0.05) { o.byte(44) }
            }
        }
        if let end { o.byte(end) }
    }

    mutating func paragraph(_ o: inout Out, _ sentences: Int) {
        for i in 0..<sentences {
            if i > 0 { o.byte(32) }
            sentence(&o, 5, 16, end: rng.chance(0.9) ? 46 : 33)
        }
    }

    mutating func cls(_ o: inout Out) {
        o.w(classes[rng.skewed(classes.count)])
        if rng.chance(0.2) {
            o.byte(32)
            o.w(classes[rng.skewed(classes.count)])
        }
    }

    mutating func price(_ o: inout Out) {
        let dollars = rng.pick([0, 1, 2, 4, 4, 6, 9, 9, 12, 14, 19, 29, 39, 49, 59, 79, 99])
        o.int(dollars)
        o.s(rng.chance(0.8) ? ".99" : ".49")
    }
}
