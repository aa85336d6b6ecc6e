/// What the host did and why, kept in two bounded parts: the host's own entries (fetched,
/// renderer-ready, presented, dismissed, ...) and those the content's messages cause
/// (captured, capture-dropped, capture-refused). Each part keeps its newest entries up to its
/// own bound, so however much content posts, the host's entries stay.
struct Timeline: Sendable {
    /// Who caused an entry.
    enum Source: Sendable {
        case host
        case content
    }

    /// How many of the host's own entries are kept.
    static let hostCapacity = 500
    /// How many entries the content's messages caused are kept.
    static let contentCapacity = 100

    private var host = Part(capacity: Self.hostCapacity)
    private var content = Part(capacity: Self.contentCapacity)
    private var sequence = 0

    /// Adds an entry to its part, dropping that part's oldest past its bound.
    /// - Complexity: amortized O(1).
    mutating func append(_ entry: TimelineEntry, from source: Source) {
        sequence += 1
        switch source {
        case .host: host.append(entry, sequence)
        case .content: content.append(entry, sequence)
        }
    }

    /// Both parts' entries, oldest first.
    /// - Complexity: O(n) in the entries kept.
    var entries: [TimelineEntry] {
        let hostKept = host.kept
        let contentKept = content.kept
        var merged: [TimelineEntry] = []
        merged.reserveCapacity(hostKept.count + contentKept.count)
        var hostIndex = hostKept.startIndex
        var contentIndex = contentKept.startIndex
        while hostIndex < hostKept.endIndex || contentIndex < contentKept.endIndex {
            if contentIndex == contentKept.endIndex
                || (hostIndex < hostKept.endIndex && hostKept[hostIndex].sequence < contentKept[contentIndex].sequence)
            {
                merged.append(hostKept[hostIndex].entry)
                hostIndex += 1
            } else {
                merged.append(contentKept[contentIndex].entry)
                contentIndex += 1
            }
        }
        return merged
    }

    /// One part: its entries in order, trimmed in halves so an append is O(1) amortized.
    private struct Part: Sendable {
        let capacity: Int
        private var stored: [(sequence: Int, entry: TimelineEntry)] = []

        init(capacity: Int) { self.capacity = capacity }

        var kept: ArraySlice<(sequence: Int, entry: TimelineEntry)> { stored.suffix(capacity) }

        mutating func append(_ entry: TimelineEntry, _ sequence: Int) {
            stored.append((sequence, entry))
            if stored.count >= 2 * capacity { stored.removeFirst(stored.count - capacity) }
        }
    }
}
