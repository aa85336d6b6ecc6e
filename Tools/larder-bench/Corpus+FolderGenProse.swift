import Foundation
import Glibc

extension Corpus.FolderGen {
    // MARK: prose

    mutating func sentence(_ output: inout Output, _ minWords: Int, _ maxWords: Int, end: UInt8? = nil) {
        let n = random.range(minWords, maxWords)
        for i in 0..<n {
            let word = Vocab.words[random.skewed(Vocab.words.count)]
            if i == 0 {
                output.capitalized(word)
            } else {
                output.byte(32)
                output.append(contentsOf: word)
                if i < n - 1 && random.chance(0.05) { output.byte(44) }
            }
        }
        if let end { output.byte(end) }
    }

    mutating func paragraph(_ output: inout Output, _ sentences: Int) {
        for i in 0..<sentences {
            if i > 0 { output.byte(32) }
            sentence(&output, 5, 16, end: random.chance(0.9) ? 46 : 33)
        }
    }

    mutating func cls(_ output: inout Output) {
        output.append(contentsOf: classes[random.skewed(classes.count)])
        if random.chance(0.2) {
            output.byte(32)
            output.append(contentsOf: classes[random.skewed(classes.count)])
        }
    }

    mutating func price(_ output: inout Output) {
        let dollars = random.pick([0, 1, 2, 4, 4, 6, 9, 9, 12, 14, 19, 29, 39, 49, 59, 79, 99])
        output.decimal(dollars)
        output.append(random.chance(0.8) ? ".99" : ".49")
    }
}
