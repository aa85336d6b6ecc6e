/// The name someone probably meant when they typed one that is not known: `pakc` for `pack`,
/// `--ouput` for `--output`, `entyr` for a larder.json field `entry`. Used for "did you mean"
/// hints in the CLI's usage errors and the packer's configuration errors.
public enum ClosestName {
    /// The known name nearest to `typed` by edit distance (insertions, deletions,
    /// substitutions and swaps of two neighbouring characters, each counting one), when it is
    /// near enough to be a slip: at most 1 for names up to 4 characters, 2 up to 8, else 3.
    /// Ties go to the earlier name in `known`; nil when nothing is near or `typed` is known.
    /// - Complexity: O(n·m) per name compared.
    public static func suggesting(_ typed: String, among known: some Sequence<String>) -> String? {
        let limit = typed.count <= 4 ? 1 : typed.count <= 8 ? 2 : 3
        var best: (name: String, distance: Int)?
        for name in known {
            guard name != typed else { return nil }
            let distance = editDistance(Array(typed), Array(name))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (name, distance) }
        }
        return best?.name
    }

    /// `; did you mean 'x'?`, or nothing when ``suggesting(_:among:)`` finds no name.
    public static func hint(_ typed: String, among known: some Sequence<String>) -> String {
        suggesting(typed, among: known).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// The optimal string alignment distance between two strings.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
