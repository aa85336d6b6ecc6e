// TEMPORARY stub until MemoryTier.swift lands.
public enum MemoryPressure: Sendable, Equatable { case warning, critical }
public struct MemoryTierStatistics: Sendable, Equatable { public var hits = 0, misses = 0, entries = 0, bytes = 0, heldEntries = 0, evictions = 0 }
public final class MemoryTier<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public init(budget: Int, entryLimit: Int) {}
    public func value(for key: Key) -> Value? { nil }
    @discardableResult public func insert(_ value: Value, for key: Key, cost: Int) -> Bool { false }
    @discardableResult public func hold(_ key: Key) -> Bool { false }
    public func release(_ key: Key) {}
    public func remove(_ key: Key) {}
    public func removeAll() {}
    public func handlePressure(_ pressure: MemoryPressure) {}
    public var statistics: MemoryTierStatistics { .init() }
}
public enum PressureStall { public static func current(path: String = "") -> MemoryPressure? { nil } }
