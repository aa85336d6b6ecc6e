/// Lets other tasks run until `condition` holds; gives up after `turns` yields (no sleeping:
/// tests on a manual clock only move time when they advance it).
public func eventually(turns: Int = 20_000, _ condition: () async -> Bool) async -> Bool {
    for _ in 0..<turns {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}
