import LarderSystem

/// How hard the system is asking for memory back.
public enum MemoryPressure: Sendable, Equatable {
    /// Trim the memory tier to half its budget, keeping entries held by active presentations.
    case warning
    /// Drop everything but entries held by active presentations.
    case critical
}

/// A byte-budgeted least-recently-used cache with a per-entry size cap, safe to share between
/// threads. Entries can be held (pinned) by active presentations: pressure never drops them,
/// and they still count toward the budget. It never holds more than `budget` bytes.
///
/// Unheld entries sit in a recency list; eviction takes the least recently used of them first.
/// A held entry leaves that list while held and comes back as the most recently used when its
/// last hold is released. One lock guards everything, so every method is atomic.
public final class MemoryTier<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The most bytes the tier ever holds.
    public let budget: Int
    /// The largest cost a single entry may have.
    public let entryLimit: Int

    private let state: Locked<State>

    /// Creates an empty tier.
    /// - Parameters:
    ///   - budget: The most bytes the tier may hold; not negative.
    ///   - entryLimit: The largest cost one entry may have; not negative. A limit above
    ///     `budget` is allowed, and `budget` then caps entries instead.
    public init(budget: Int, entryLimit: Int) {
        precondition(budget >= 0, "a memory tier's budget cannot be negative")
        precondition(entryLimit >= 0, "a memory tier's entry limit cannot be negative")
        self.budget = budget
        self.entryLimit = entryLimit
        state = Locked(State())
    }

    /// Looks a key up, counting a hit or a miss.
    /// - Parameter key: The key to look up.
    /// - Returns: The value, or nil when the key is not in the tier. A hit on an unheld entry
    ///   makes it the most recently used.
    /// - Complexity: O(1); a hit does not allocate.
    public func value(for key: Key) -> Value? {
        state.withLock { $0.value(for: key) }
    }

    /// Stores a value of `cost` bytes, evicting least recently used unheld entries to make room.
    ///
    /// A value for a key already present replaces it and keeps its holds. A refused insert
    /// changes nothing: it evicts nothing and leaves any present entry for the key as it was.
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: Its key.
    ///   - cost: Its size in bytes.
    /// - Returns: Whether it was stored. It is not when `cost` is negative or over `entryLimit`,
    ///   or when it cannot fit because the rest of the budget is held.
    /// - Complexity: O(1) plus O(1) for each entry evicted.
    @discardableResult public func insert(_ value: Value, for key: Key, cost: Int) -> Bool {
        state.withLock { $0.insert(value, for: key, cost: cost, budget: budget, entryLimit: entryLimit) }
    }

    /// Holds an entry so that pressure and eviction leave it alone. Holds are counted: an entry
    /// held twice stays held until released twice.
    /// - Parameter key: The entry to hold.
    /// - Returns: Whether the key was present; holding a missing key does nothing.
    /// - Complexity: O(1).
    @discardableResult public func hold(_ key: Key) -> Bool {
        state.withLock { $0.hold(key) }
    }

    /// Releases one hold on an entry. When the last hold goes, the entry becomes the most
    /// recently used unheld entry. Releasing a missing or unheld key does nothing.
    /// - Parameter key: The entry to release.
    /// - Complexity: O(1).
    public func release(_ key: Key) {
        state.withLock { $0.release(key) }
    }

    /// Removes an entry, held or not. Not counted as an eviction.
    /// - Parameter key: The entry to remove.
    /// - Complexity: O(1).
    public func remove(_ key: Key) {
        state.withLock { state in
            if let slot = state.index[key] { state.detach(slot) }
        }
    }

    /// Removes every entry, held ones too, and frees the tier's storage (for logout and purge).
    /// The hit, miss and eviction counts are kept.
    /// - Complexity: O(n) in the number of entries.
    public func removeAll() {
        state.withLock { $0.removeAll() }
    }

    /// Gives memory back: ``MemoryPressure/warning`` evicts least recently used unheld entries
    /// until the tier holds at most half its budget (or only held entries are left);
    /// ``MemoryPressure/critical`` evicts every unheld entry.
    /// - Parameter pressure: How hard to trim.
    /// - Complexity: O(1) for each entry evicted.
    public func handlePressure(_ pressure: MemoryPressure) {
        state.withLock { state in
            switch pressure {
            case .warning:
                while state.bytes > budget / 2, state.evictLeastRecentlyUsed() {}
            case .critical:
                while state.evictLeastRecentlyUsed() {}
            }
        }
    }

    /// A snapshot of the tier's counts.
    /// - Complexity: O(1).
    public var statistics: MemoryTierStatistics {
        state.withLock { state in
            MemoryTierStatistics(
                hits: state.hits, misses: state.misses, entries: state.index.count, bytes: state.bytes,
                heldEntries: state.heldEntries, evictions: state.evictions)
        }
    }

    /// Checks the tier's internal consistency, stopping the process when it is broken: bytes
    /// add up, the budget holds, and the recency list, the held entries and the key index agree.
    /// For tests.
    /// - Complexity: O(n) in the number of slots.
    package func checkInvariants() {
        state.withLock { $0.checkInvariants(budget: budget) }
    }
}

/// Counts from a ``MemoryTier``.
public struct MemoryTierStatistics: Sendable, Equatable {
    /// Lookups that found their key.
    public var hits: Int
    /// Lookups that did not.
    public var misses: Int
    /// Entries in the tier now, held or not.
    public var entries: Int
    /// The summed cost of those entries.
    public var bytes: Int
    /// Entries held by at least one presentation.
    public var heldEntries: Int
    /// Entries dropped to make room or because of memory pressure; explicit removal is not counted.
    public var evictions: Int

    /// Creates a set of counts, zero unless given.
    public init(hits: Int = 0, misses: Int = 0, entries: Int = 0, bytes: Int = 0, heldEntries: Int = 0, evictions: Int = 0) {
        self.hits = hits
        self.misses = misses
        self.entries = entries
        self.bytes = bytes
        self.heldEntries = heldEntries
        self.evictions = evictions
    }
}


extension MemoryTier {
    /// Everything behind the lock. Each entry lives in a slot: its key and value here, its cost,
    /// holds and links in `slots`.
    fileprivate struct State {
        var index: [Key: Int] = [:]
        var keys: [Key?] = []
        var values: [Value?] = []
        var slots = SlotTable()
        var bytes = 0
        var heldBytes = 0
        var heldEntries = 0
        var hits = 0
        var misses = 0
        var evictions = 0

        mutating func value(for key: Key) -> Value? {
            guard let slot = index[key] else {
                misses += 1
                return nil
            }
            hits += 1
            if slots.holds[slot] == 0 { slots.moveToHead(slot) }
            return values[slot]
        }

        mutating func insert(_ value: Value, for key: Key, cost: Int, budget: Int, entryLimit: Int) -> Bool {
            let present = index[key]
            let keptHolds = present.map { slots.holds[$0] } ?? 0
            // Bytes no eviction can free once the present entry (if any) is replaced.
            let fixedBytes = heldBytes - (present.map { keptHolds > 0 ? slots.cost[$0] : 0 } ?? 0)
            guard cost >= 0, cost <= entryLimit, cost <= budget - fixedBytes else { return false }

            if let present { detach(present) }
            while bytes > budget - cost {
                let evicted = evictLeastRecentlyUsed()
                precondition(evicted, "unheld entries must cover what the held ones leave")
            }

            let slot = slots.allocate(cost: cost, holds: keptHolds)
            if slot == keys.count {
                keys.append(key)
                values.append(value)
            } else {
                keys[slot] = key
                values[slot] = value
            }
            index[key] = slot
            bytes += cost
            if keptHolds > 0 {
                heldBytes += cost
                heldEntries += 1
            } else {
                slots.linkAtHead(slot)
            }
            return true
        }

        mutating func hold(_ key: Key) -> Bool {
            guard let slot = index[key] else { return false }
            if slots.holds[slot] == 0 {
                slots.unlink(slot)
                heldBytes += slots.cost[slot]
                heldEntries += 1
            }
            slots.holds[slot] += 1
            return true
        }

        mutating func release(_ key: Key) {
            guard let slot = index[key], slots.holds[slot] > 0 else { return }
            slots.holds[slot] -= 1
            if slots.holds[slot] == 0 {
                heldBytes -= slots.cost[slot]
                heldEntries -= 1
                slots.linkAtHead(slot)
            }
        }

        /// Evicts the least recently used unheld entry; false when there is none.
        mutating func evictLeastRecentlyUsed() -> Bool {
            guard slots.tail != SlotTable.none else { return false }
            detach(slots.tail)
            evictions += 1
            return true
        }

        /// Takes a slot's entry out of the tier, held or not, and frees the slot.
        mutating func detach(_ slot: Int) {
            let cost = slots.cost[slot]
            if slots.holds[slot] > 0 {
                heldBytes -= cost
                heldEntries -= 1
            } else {
                slots.unlink(slot)
            }
            bytes -= cost
            if let key = keys[slot] { index[key] = nil }
            keys[slot] = nil
            values[slot] = nil
            slots.free(slot)
        }

        mutating func removeAll() {
            index = [:]
            keys = []
            values = []
            slots = SlotTable()
            (bytes, heldBytes, heldEntries) = (0, 0, 0)
        }

        func checkInvariants(budget: Int) {
            precondition(bytes >= 0 && bytes <= budget, "bytes \(bytes) outside 0...\(budget)")
            precondition(keys.count == slots.count && values.count == slots.count, "slot arrays differ in length")
            let listed = slots.checkLinks()
            for slot in listed {
                precondition(slots.holds[slot] == 0, "held slot \(slot) is in the recency list")
                precondition(keys[slot].map { index[$0] == slot } ?? false, "listed slot \(slot) is not indexed")
                precondition(values[slot] != nil, "listed slot \(slot) has no value")
            }

            var held = 0
            var summedBytes = 0
            var summedHeldBytes = 0
            for (key, slot) in index {
                precondition(keys.indices.contains(slot), "a key indexes slot \(slot), out of range")
                precondition(keys[slot] == key, "slot \(slot) holds another key")
                precondition(slots.cost[slot] >= 0, "slot \(slot) has a negative cost")
                summedBytes += slots.cost[slot]
                if slots.holds[slot] > 0 {
                    held += 1
                    summedHeldBytes += slots.cost[slot]
                }
            }
            precondition(summedBytes == bytes, "bytes \(bytes) is not the sum of costs \(summedBytes)")
            precondition(summedHeldBytes == heldBytes, "held bytes \(heldBytes) is not \(summedHeldBytes)")
            precondition(held == heldEntries, "held entries \(heldEntries) is not \(held)")
            precondition(listed.count + held == index.count, "\(listed.count) listed + \(held) held is not \(index.count)")

            let free = slots.checkFreeList()
            for slot in free {
                precondition(keys[slot] == nil && values[slot] == nil, "free slot \(slot) is in use")
            }
            precondition(free.count + index.count == slots.count, "slots leak: \(free.count) free, \(index.count) used")
        }
    }
}

/// The part of a tier's slots that does not depend on its key and value types, so it is
/// compiled once and fully optimized whatever the tier holds: each slot's cost, hold count and
/// links. Unheld entries form a doubly linked recency list from `head` (most recently used) to
/// `tail` (least recently used); held entries are in no list; free slots are chained through
/// `next` from `freeHead`.
private struct SlotTable {
    static let none = -1

    var cost: [Int] = []
    var holds: [Int] = []
    /// The more recently used neighbour in the recency list, or `none`.
    var prev: [Int] = []
    /// The less recently used neighbour, or `none`; in a free slot, the next free slot.
    var next: [Int] = []
    var head = none
    var tail = none
    var freeHead = none

    var count: Int { cost.count }

    /// Takes a free slot, or a new one at index `count`, outside any list.
    mutating func allocate(cost: Int, holds: Int) -> Int {
        let slot: Int
        if freeHead == Self.none {
            slot = count
            self.cost.append(cost)
            self.holds.append(holds)
            prev.append(Self.none)
            next.append(Self.none)
        } else {
            slot = freeHead
            freeHead = next[slot]
            self.cost[slot] = cost
            self.holds[slot] = holds
            prev[slot] = Self.none
            next[slot] = Self.none
        }
        return slot
    }

    /// Returns a slot that is in no list to the free list.
    mutating func free(_ slot: Int) {
        cost[slot] = 0
        holds[slot] = 0
        prev[slot] = Self.none
        next[slot] = freeHead
        freeHead = slot
    }

    mutating func linkAtHead(_ slot: Int) {
        prev[slot] = Self.none
        next[slot] = head
        if head != Self.none { prev[head] = slot } else { tail = slot }
        head = slot
    }

    mutating func unlink(_ slot: Int) {
        let (before, after) = (prev[slot], next[slot])
        if before != Self.none { next[before] = after } else { head = after }
        if after != Self.none { prev[after] = before } else { tail = before }
        prev[slot] = Self.none
        next[slot] = Self.none
    }

    /// Makes a listed slot the most recently used.
    mutating func moveToHead(_ slot: Int) {
        guard head != slot else { return }
        unlink(slot)
        linkAtHead(slot)
    }

    /// Checks the recency list's links and returns its slots, head first.
    func checkLinks() -> [Int] {
        var listed: [Int] = []
        var previous = Self.none
        var slot = head
        while slot != Self.none {
            precondition(listed.count < count, "the recency list has a cycle")
            precondition(prev[slot] == previous, "slot \(slot) has a wrong back link")
            listed.append(slot)
            previous = slot
            slot = next[slot]
        }
        precondition(tail == previous, "the recency list's tail is wrong")
        return listed
    }

    /// Checks the free list and returns its slots.
    func checkFreeList() -> [Int] {
        var free: [Int] = []
        var slot = freeHead
        while slot != Self.none {
            precondition(free.count < count, "the free list has a cycle")
            precondition(holds[slot] == 0 && prev[slot] == Self.none, "free slot \(slot) is linked or held")
            free.append(slot)
            slot = next[slot]
        }
        return free
    }
}
