import LarderFormat

/// Hostile patches (Docs/Patches.md): what a device applies with bytes from the network.
/// The first input byte picks a base, the rest is the patch; the object size is the base's
/// size plus a second byte, so sizes both right and wrong for a frame are reached.
enum PatchTargets {
    /// Small limits, so a run stays in milliseconds and every limit is reachable.
    static let limits = PatchLimits(maximumPatchBytes: 1 << 16, maximumWindowLog: 20, maximumOutputBytes: 1 << 18)

    /// Three bases: empty, a short text, a script-like text of 20 kB.
    static let bases: [[UInt8]] = [
        [], Array("body { color: #333; }\n".utf8),
        Array((0..<400).map { "  MathJax.Hub.queue.push(\($0 % 37), callback\($0 % 11));" }.joined(separator: "\n").utf8),
    ]

    static let target = FuzzTarget(
        name: "patch",
        summary: "ZstdPatch.apply on hostile patches: a PatchError, or exactly the stated size; within PatchLimits",
        maximumLength: 1 << 14,
        run: { bytes in
            guard bytes.count >= 2 else { return }
            let base = bases[Int(bytes[0]) % bases.count]
            let size = Int64(base.count) + Int64(bytes[1])
            let patch = Array(bytes.dropFirst(2))
            do throws(PatchError) {
                let made = try ZstdPatch.apply(patch, to: base, outputSize: size, limits: limits)
                require(Int64(made.count) == size, "a patch made \(made.count) bytes, not the \(size) asked")
                Outcomes.record("applied")
            } catch {
                Outcomes.record("refused: \(error.code)")
            }
        },
        seeds: { try seeds() })

    /// Real patches between edits of each base, with their selector and size bytes.
    static func seeds() throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for (index, base) in bases.enumerated() {
            for extra in [0, 1, 40] {
                var edited = base
                edited.insert(contentsOf: [UInt8](repeating: UInt8(ascii: "x"), count: extra), at: base.count / 2)
                let patch = try ZstdPatch.make(from: base, to: edited, limits: limits)
                seeds.append([UInt8(index), UInt8(extra)] + patch)
                seeds.append([UInt8(index), UInt8(extra)] + patch.dropLast(3))
            }
        }
        return seeds
    }
}
