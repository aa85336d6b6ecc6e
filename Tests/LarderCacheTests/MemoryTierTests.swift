import Foundation
import LarderTestSupport
import Synchronization
import Testing
@testable import LarderCache

/// A 32-byte key, shaped like a digest.
private struct Key32: Hashable, Sendable {
    var w0: UInt64, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0
}

private typealias Tier = MemoryTier<String, Int>

@Suite struct MemoryTierTests {
    /// A tier holding `keys` in order, each of `cost` bytes, so the first is least recently used.
    private func tier(budget: Int = 100, entryLimit: Int = 100, filledWith keys: [String], cost: Int = 10) -> Tier {
        let tier = Tier(budget: budget, entryLimit: entryLimit)
        for (number, key) in keys.enumerated() { #expect(tier.insert(number, for: key, cost: cost)) }
        return tier
    }

    @Test func evictsTheLeastRecentlyUsedFirst() {
        let tier = tier(budget: 30, filledWith: ["a", "b", "c"])
        #expect(tier.value(for: "a") == 0)  // b is now the least recently used
        #expect(tier.insert(3, for: "d", cost: 10))
        #expect(tier.value(for: "b") == nil)
        #expect(tier.value(for: "a") == 0)
        #expect(tier.value(for: "c") == 2)
        #expect(tier.value(for: "d") == 3)
        tier.checkInvariants()
    }

    @Test func evictsAsManyAsNeeded() {
        let tier = tier(budget: 40, filledWith: ["a", "b", "c", "d"])
        #expect(tier.insert(9, for: "big", cost: 25))
        #expect(tier.value(for: "a") == nil)
        #expect(tier.value(for: "b") == nil)
        #expect(tier.value(for: "c") == nil)
        #expect(tier.value(for: "d") == 3)
        #expect(tier.statistics.bytes == 35)
        #expect(tier.statistics.evictions == 3)
        tier.checkInvariants()
    }

    @Test func skipsHeldEntriesWhenEvicting() {
        let tier = tier(budget: 30, filledWith: ["a", "b", "c"])
        #expect(tier.hold("a"))
        #expect(tier.insert(3, for: "d", cost: 10))
        #expect(tier.value(for: "a") == 0)
        #expect(tier.value(for: "b") == nil)
        #expect(tier.statistics.heldEntries == 1)
        #expect(tier.statistics.bytes == 30)
        tier.checkInvariants()
    }

    @Test func refusesEntriesOverTheLimit() {
        let tier = tier(budget: 100, entryLimit: 20, filledWith: ["a"])
        #expect(tier.insert(1, for: "exact", cost: 20))
        #expect(!tier.insert(2, for: "over", cost: 21))
        #expect(!tier.insert(3, for: "negative", cost: -1))
        #expect(tier.value(for: "over") == nil)
        #expect(tier.statistics.entries == 2)
        #expect(tier.statistics.evictions == 0)

        let small = Tier(budget: 10, entryLimit: 1000)
        #expect(!small.insert(1, for: "over budget", cost: 11))
        #expect(small.insert(1, for: "fits", cost: 10))
        small.checkInvariants()
    }

    @Test func replacesAPresentKey() {
        let tier = tier(budget: 30, filledWith: ["a", "b", "c"])
        #expect(tier.insert(7, for: "a", cost: 15))
        #expect(tier.value(for: "a") == 7)
        #expect(tier.statistics.entries == 2)  // b made room
        #expect(tier.statistics.bytes == 25)
        // A refused replacement leaves the old entry alone.
        #expect(!tier.insert(8, for: "a", cost: 31))
        #expect(tier.value(for: "a") == 7)
        tier.checkInvariants()
    }

    @Test func replacingAHeldEntryKeepsItsHolds() {
        let tier = tier(budget: 30, filledWith: ["a", "b"])
        #expect(tier.hold("a"))
        #expect(tier.insert(5, for: "a", cost: 20))
        #expect(tier.statistics.heldEntries == 1)
        tier.handlePressure(.critical)
        #expect(tier.value(for: "a") == 5)
        tier.release("a")
        #expect(tier.statistics.heldEntries == 0)
        tier.checkInvariants()
    }

    @Test func countsHolds() {
        let tier = tier(filledWith: ["a", "b"])
        #expect(tier.hold("a"))
        #expect(tier.hold("a"))
        #expect(!tier.hold("missing"))
        tier.release("a")
        tier.handlePressure(.critical)
        #expect(tier.value(for: "a") == 0, "still held once")
        tier.release("a")
        tier.release("a")  // one release too many does nothing
        tier.release("missing")
        #expect(tier.statistics.heldEntries == 0)
        tier.handlePressure(.critical)
        #expect(tier.value(for: "a") == nil)
        #expect(tier.statistics.entries == 0)
        tier.checkInvariants()
    }

    @Test func releasedEntryBecomesMostRecentlyUsed() {
        let tier = tier(budget: 30, filledWith: ["a", "b", "c"])
        #expect(tier.hold("a"))
        tier.release("a")
        #expect(tier.insert(3, for: "d", cost: 10))
        #expect(tier.value(for: "b") == nil)
        #expect(tier.value(for: "a") == 0)
        tier.checkInvariants()
    }

    @Test func warningTrimsToHalfTheBudgetKeepingHeldEntries() {
        let keys = (0..<10).map { "k\($0)" }
        let tier = tier(budget: 100, filledWith: keys)
        #expect(tier.hold("k0"))
        #expect(tier.hold("k1"))
        #expect(tier.value(for: "k2") == 2)  // most recently used now
        tier.handlePressure(.warning)
        let statistics = tier.statistics
        #expect(statistics.bytes <= 50)
        #expect(statistics.bytes == 50, "evicts no more than needed")
        #expect(statistics.evictions == 5)
        #expect(tier.value(for: "k0") == 0)
        #expect(tier.value(for: "k1") == 1)
        #expect(tier.value(for: "k2") == 2)
        #expect(tier.value(for: "k3") == nil)
        #expect(tier.value(for: "k9") == 9)
        tier.checkInvariants()
    }

    @Test func warningCannotDropHeldBytes() {
        let tier = tier(budget: 100, filledWith: (0..<10).map { "k\($0)" })
        for number in 0..<7 { #expect(tier.hold("k\(number)")) }
        tier.handlePressure(.warning)
        #expect(tier.statistics.entries == 7)
        #expect(tier.statistics.bytes == 70)
        tier.checkInvariants()
    }

    @Test func criticalKeepsOnlyHeldEntries() {
        let tier = tier(filledWith: ["a", "b", "c", "d"])
        #expect(tier.hold("b"))
        #expect(tier.hold("d"))
        tier.handlePressure(.critical)
        let statistics = tier.statistics
        #expect(statistics.entries == 2)
        #expect(statistics.heldEntries == 2)
        #expect(statistics.bytes == 20)
        #expect(statistics.evictions == 2)
        #expect(tier.value(for: "b") == 1)
        #expect(tier.value(for: "d") == 3)
        tier.checkInvariants()
    }

    @Test func heldEntrySurvivesPressureAndEviction() {
        let tier = tier(budget: 30, filledWith: ["held"])
        #expect(tier.hold("held"))
        for number in 0..<50 { #expect(tier.insert(number, for: "other\(number)", cost: 10)) }
        tier.handlePressure(.warning)
        tier.handlePressure(.critical)
        #expect(tier.value(for: "held") == 0)
        #expect(tier.statistics.entries == 1)
        tier.checkInvariants()
    }

    @Test func refusesInsertWhenEverythingIsHeld() {
        let tier = tier(budget: 30, filledWith: ["a", "b", "c"])
        for key in ["a", "b", "c"] { #expect(tier.hold(key)) }
        #expect(!tier.insert(3, for: "d", cost: 10))
        #expect(tier.insert(4, for: "free", cost: 0), "a zero-cost entry still fits")
        #expect(tier.statistics.evictions == 0)
        #expect(tier.statistics.bytes == 30)

        // Partly held: the refused insert evicts nothing either.
        tier.release("c")
        #expect(!tier.insert(5, for: "e", cost: 11))
        #expect(tier.value(for: "c") == 2)
        #expect(tier.insert(5, for: "e", cost: 10))
        #expect(tier.value(for: "c") == nil)
        tier.checkInvariants()
    }

    @Test func removesOneOrAll() {
        let tier = tier(filledWith: ["a", "b", "c"])
        #expect(tier.hold("a"))
        #expect(tier.hold("b"))
        tier.remove("b")  // held or not
        tier.remove("missing")
        #expect(tier.value(for: "b") == nil)
        #expect(tier.statistics.heldEntries == 1)
        tier.checkInvariants()

        tier.removeAll()
        let statistics = tier.statistics
        #expect(statistics.entries == 0)
        #expect(statistics.bytes == 0)
        #expect(statistics.heldEntries == 0)
        #expect(statistics.evictions == 0, "removal is not eviction")
        #expect(tier.value(for: "a") == nil)
        tier.release("a")
        tier.checkInvariants()
        #expect(tier.insert(1, for: "again", cost: 100))
        tier.checkInvariants()
    }

    @Test func countsHitsMissesAndEvictions() {
        let tier = tier(budget: 20, filledWith: ["a", "b"])
        _ = tier.value(for: "a")
        _ = tier.value(for: "a")
        _ = tier.value(for: "nope")
        #expect(tier.insert(2, for: "c", cost: 10))  // evicts b
        #expect(tier.insert(3, for: "d", cost: 20))  // evicts a and c
        _ = tier.value(for: "b")
        #expect(
            tier.statistics
                == MemoryTierStatistics(hits: 2, misses: 2, entries: 1, bytes: 20, heldEntries: 0, evictions: 3))
    }

    @Test func matchesAReferenceUnderRandomOperations() {
        var random = SeededGenerator(state: 0x1A2D_E4CA_C4E0)
        let budget = 1000
        let tier = MemoryTier<Key32, Int>(budget: budget, entryLimit: 300)
        var reference = ReferenceTier(budget: budget, entryLimit: 300)
        var refused = 0  // inserts within the entry limit that found no room
        for step in 0..<10_000 {
            let key = Key32(w0: UInt64.random(in: 0..<40, using: &random), w3: 7)
            switch Int.random(in: 0..<1000, using: &random) {
            case 0..<400:
                #expect(tier.value(for: key) == reference.value(for: key), "step \(step)")
            case 400..<750:
                let cost = Int.random(in: 0...350, using: &random)
                let stored = tier.insert(step, for: key, cost: cost)
                #expect(stored == reference.insert(step, for: key, cost: cost), "step \(step)")
                if !stored && cost <= 300 { refused += 1 }
            case 750..<850:
                #expect(tier.hold(key) == reference.hold(key))
            case 850..<950:
                tier.release(key)
                reference.release(key)
            case 950..<975:
                tier.remove(key)
                reference.remove(key)
            case 975..<999:
                let pressure: MemoryPressure = Bool.random(using: &random) ? .warning : .critical
                tier.handlePressure(pressure)
                reference.handlePressure(pressure)
            default:
                tier.removeAll()
                reference.removeAll()
            }
            tier.checkInvariants()
            #expect(tier.statistics == reference.statistics, "step \(step)")
            #expect(tier.statistics.bytes <= budget)
        }
        let statistics = tier.statistics
        #expect(statistics.hits > 300 && statistics.misses > 1000 && statistics.evictions > 1000)
        #expect(refused > 20, "some inserts are refused for want of unheld room")
    }

    @Test func staysConsistentUnderConcurrentUse() {
        let tier = MemoryTier<Key32, Int>(budget: 4096, entryLimit: 512)
        let lookups = Atomic<Int>(0)
        let threads = 4
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var random = SeededGenerator(state: UInt64(thread) &* 0x5151 &+ 1)
            var held: [Key32] = []
            for step in 0..<5_000 {
                let key = Key32(w0: UInt64.random(in: 0..<64, using: &random))
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<5:
                    _ = tier.value(for: key)
                    lookups.add(1, ordering: .relaxed)
                case 5..<8: tier.insert(step, for: key, cost: Int.random(in: 1...600, using: &random))
                case 8:
                    if held.count < 4, tier.hold(key) { held.append(key) } else if let last = held.popLast() {
                        tier.release(last)
                    }
                default: tier.handlePressure(step % 2 == 0 ? .warning : .critical)
                }
            }
            for key in held { tier.release(key) }
        }
        tier.checkInvariants()
        let statistics = tier.statistics
        #expect(statistics.hits + statistics.misses == lookups.load(ordering: .relaxed))
        #expect(statistics.heldEntries == 0)
        #expect(statistics.bytes <= 4096)
        tier.handlePressure(.critical)
        #expect(tier.statistics.entries == 0)
        tier.checkInvariants()
    }
}

/// The tier's rules restated slowly and plainly, to check it against: entries in an array, least
/// recently used first.
private struct ReferenceTier {
    struct Entry {
        var key: Key32
        var value: Int
        var cost: Int
        var holds: Int
    }

    let budget: Int
    let entryLimit: Int
    var entries: [Entry] = []
    var statistics = MemoryTierStatistics(hits: 0, misses: 0, entries: 0, bytes: 0, heldEntries: 0, evictions: 0)

    init(budget: Int, entryLimit: Int) {
        self.budget = budget
        self.entryLimit = entryLimit
    }

    mutating func value(for key: Key32) -> Int? {
        guard let position = entries.firstIndex(where: { $0.key == key }) else {
            statistics.misses += 1
            return nil
        }
        statistics.hits += 1
        let entry = entries[position]
        if entry.holds == 0 { makeMostRecent(position) }
        return entry.value
    }

    mutating func insert(_ value: Int, for key: Key32, cost: Int) -> Bool {
        let holds = entries.first(where: { $0.key == key })?.holds ?? 0
        let heldElsewhere = entries.filter { $0.holds > 0 && $0.key != key }.reduce(0) { $0 + $1.cost }
        guard cost >= 0, cost <= entryLimit, heldElsewhere + cost <= budget else { return false }
        entries.removeAll { $0.key == key }
        while bytes + cost > budget { evictOne() }
        entries.append(Entry(key: key, value: value, cost: cost, holds: holds))
        update()
        return true
    }

    mutating func hold(_ key: Key32) -> Bool {
        guard let position = entries.firstIndex(where: { $0.key == key }) else { return false }
        entries[position].holds += 1
        update()
        return true
    }

    mutating func release(_ key: Key32) {
        guard let position = entries.firstIndex(where: { $0.key == key }), entries[position].holds > 0 else { return }
        entries[position].holds -= 1
        if entries[position].holds == 0 { makeMostRecent(position) }
        update()
    }

    mutating func remove(_ key: Key32) {
        entries.removeAll { $0.key == key }
        update()
    }

    mutating func removeAll() {
        entries = []
        update()
    }

    mutating func handlePressure(_ pressure: MemoryPressure) {
        let target = pressure == .warning ? budget / 2 : 0
        while bytes > target, entries.contains(where: { $0.holds == 0 }) { evictOne() }
    }

    private var bytes: Int { entries.reduce(0) { $0 + $1.cost } }

    private mutating func evictOne() {
        guard let position = entries.firstIndex(where: { $0.holds == 0 }) else {
            Issue.record("the reference found nothing to evict")
            return
        }
        entries.remove(at: position)
        statistics.evictions += 1
        update()
    }

    private mutating func makeMostRecent(_ position: Int) {
        entries.append(entries.remove(at: position))
    }

    private mutating func update() {
        statistics.entries = entries.count
        statistics.bytes = bytes
        statistics.heldEntries = entries.filter { $0.holds > 0 }.count
    }
}
