import LarderFormat

extension JourneyHistory {
    /// How many of the newest revisions a written history keeps (about 150 bytes each, some
    /// 150 kB in all), besides the older ones ``bounded(for:)`` keeps because a rollback or the
    /// current rollout still needs them. Revision numbers are unaffected: the next revision
    /// follows the document's and the newest entry's, which are always kept.
    public static let keptRevisions = 1_000

    /// The history as it is written once `current` is the journey's document: its newest
    /// ``keptRevisions`` entries, and older ones only when still needed:
    /// - the newest entry with a bundle other than `current`'s below its revision, which a
    ///   plain `--rollback` goes to (``rollbackTarget(from:to:)``), even after a long run of
    ///   revisions of one bundle (refresh changes, rollout steps);
    /// - the newest entry of the bundle the rest of `current`'s rollout keep, so a rollback can
    ///   name it.
    ///
    /// The result is never larger than a reader takes (``maximumBytes``): should the kept
    /// entries be that long (only a hand-edited history's could), the oldest unneeded ones go
    /// first, then the needed ones, never the newest.
    /// - Complexity: O(*n*) in the number of entries.
    public func bounded(for current: JourneyDocument) -> JourneyHistory {
        var needed = Set<Int>()
        if let index = entries.lastIndex(where: { $0.revision < current.revision && $0.bundle != current.bundle }) { needed.insert(index) }
        if let previous = current.rollout?.previous, let index = entries.lastIndex(where: { $0.bundle == previous }) { needed.insert(index) }
        let newest = max(0, entries.count - Self.keptRevisions)
        var kept = entries.indices.filter { $0 >= newest || needed.contains($0) }
        var size = JourneyHistory(entries: kept.map { entries[$0] }).bytes.count
        // Rare: entries far longer than Larder writes. Drop the oldest, unneeded first, each
        // taking its bytes and a separating comma off the total.
        for pass in 0..<2 where size > Self.maximumBytes {
            var index = 0
            while size > Self.maximumBytes, index < kept.count - 1 {
                if pass == 1 || !needed.contains(kept[index]) {
                    size -= JourneyHistory(entries: [entries[kept[index]]]).bytes.count - 1
                    kept.remove(at: index)
                } else {
                    index += 1
                }
            }
        }
        return JourneyHistory(entries: kept.map { entries[$0] })
    }
}
