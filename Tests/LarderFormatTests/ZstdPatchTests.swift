import Foundation
import LarderFormat
import Testing

/// Patches made and applied: the round trip, and every hostile patch refused with its own error
/// before a wrong byte is returned.
struct ZstdPatchTests {
    /// A 64 kB script-like text and the same with one line inserted in its middle.
    static func revisions() -> (old: [UInt8], new: [UInt8]) {
        var generator = SeededLines(seed: 7)
        let lines = (0..<1_600).map { _ in generator.line() }
        let old = Array(lines.joined(separator: "\n").utf8)
        var edited = lines
        edited.insert("  // revision 2: one line more", at: 800)
        return (old, Array(edited.joined(separator: "\n").utf8))
    }

    @Test func aOneLineEditIsATinyPatchThatRestoresTheObject() throws {
        let (old, new) = Self.revisions()
        #expect(old.count > 60_000)
        let patch = try ZstdPatch.make(from: old, to: new)
        #expect(patch.count < 200, "a one-line edit made a \(patch.count)-byte patch")
        #expect(try ZstdPatch.apply(patch, to: old, outputSize: Int64(new.count)) == new)
    }

    @Test func theWindowCoversBaseAndTarget() {
        #expect(ZstdPatch.windowLog(base: 0, target: 0) == 10)
        #expect(ZstdPatch.windowLog(base: 60_000, target: 60_000) == 17)
        #expect(ZstdPatch.windowLog(base: 1 << 20, target: 1) == 21)
    }

    @Test func aPatchPastTheWindowBoundIsNotMade() {
        let limits = PatchLimits(maximumWindowLog: 12)
        #expect(throws: PatchError.self) { try ZstdPatch.make(from: [UInt8](repeating: 1, count: 5_000), to: [1, 2, 3], limits: limits) }
    }

    enum Hostile: String, CaseIterable, CustomStringConvertible {
        case empty, truncated, flippedByte, trailingBytes, secondFrame, wrongStatedSize, otherBase, notZstd, hugeWindowDescriptor, tooLarge, windowTooLarge
        var description: String { rawValue }
    }

    @Test(arguments: Hostile.allCases) func aHostilePatchIsRefusedWithItsError(_ hostile: Hostile) throws {
        let (old, new) = Self.revisions()
        let patch = try ZstdPatch.make(from: old, to: new)
        var input = patch
        var base = old
        var limits = PatchLimits()
        var expected: Set<PatchError.Code> = [.damaged]
        switch hostile {
        case .empty: input = []
        case .truncated: input = Array(patch.dropLast(5))
        case .flippedByte:
            input[input.count / 2] ^= 0x5A
            expected = [.damaged, .sizeMismatch]
        case .trailingBytes: input += [0, 0, 0]
        case .secondFrame: input += patch
        case .wrongStatedSize: expected = [.sizeMismatch]
        case .otherBase:
            base = Array(base.reversed())
            expected = [.damaged, .sizeMismatch, .digestMismatch]
        case .notZstd: input = Array("not a patch at all".utf8)
        case .hugeWindowDescriptor:
            input[5] = 0xF8  // a window of 2^41 bytes, in a frame that is not single-segment
            input[4] &= ~0x20
            expected = [.limitExceeded]
        case .tooLarge:
            limits.maximumPatchBytes = Int64(patch.count - 1)
            expected = [.limitExceeded]
        case .windowTooLarge:
            limits.maximumWindowLog = 12
            expected = [.limitExceeded]
        }
        let size = hostile == .wrongStatedSize ? Int64(new.count + 1) : Int64(new.count)
        do {
            let made = try ZstdPatch.apply(input, to: base, outputSize: size, limits: limits)
            // Without a checksum in the frame, a changed literal or another base may decode to
            // other bytes: the caller's digest check refuses them (PatchDownload).
            #expect([.otherBase, .flippedByte].contains(hostile) && made != new, "\(hostile) was applied")
        } catch {
            #expect(expected.contains(error.code), "\(hostile): \(error)")
        }
    }

    @Test func anOutputPastTheLimitIsRefusedBeforeDecoding() {
        #expect(throws: PatchError(.limitExceeded, "an object of 100 bytes is not made from a patch (at most 10)")) {
            try ZstdPatch.apply([], to: [], outputSize: 100, limits: PatchLimits(maximumOutputBytes: 10))
        }
    }
}

/// Lines that look like a script's, the same for a seed.
struct SeededLines {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }

    mutating func line() -> String {
        let words = ["var", "function", "return", "this", "MathJax", "Hub", "config", "element", "callback", "queue", "push", "length"]
        return "  " + (0..<(3 + Int(next() % 6))).map { _ in words[Int(next() % UInt64(words.count))] + String(next() % 100) }.joined(separator: ".") + ";"
    }
}
